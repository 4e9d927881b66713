//! Who may see the page and decide: the application's check, and the default one.

use std::net::SocketAddr;

use axum::extract::ConnectInfo;
use axum::http::request::Parts;

/// The application's check of who may see and decide: `Ok` lets the request through; `Err`
/// gives the reason shown to the refused person.
pub(super) type Authorize = dyn Fn(&Parts) -> Result<(), String> + Send + Sync;

/// The default check: a request from this machine (the loopback interface) only.
pub(super) fn loopback_only(request: &Parts) -> Result<(), String> {
    match request.extensions.get::<ConnectInfo<SocketAddr>>() {
        Some(ConnectInfo(peer)) if peer.ip().is_loopback() => Ok(()),
        Some(ConnectInfo(peer)) => Err(format!(
            "This page lets only this machine decide, and the request came from {}. An \
             application that lets others decide gives the page a check of its own \
             (ApprovalPage::with_authorize).",
            peer.ip()
        )),
        None => Err(
            "This page lets only this machine decide, and cannot tell where the \
             request came from (mounted without connection info). An application that mounts \
             it gives the page a check of its own (ApprovalPage::with_authorize)."
                .to_owned(),
        ),
    }
}
