//! Who may see the page and decide: the application's check, and the default one.

use std::net::SocketAddr;

use axum::extract::ConnectInfo;
use axum::http::header;
use axum::http::request::Parts;

/// The application's check of who may see and decide: `Ok` lets the request through, with who
/// makes it (recorded with each decision they send); `Err` gives the reason shown to the
/// refused person.
pub(super) type Authorize = dyn Fn(&Parts) -> Result<String, String> + Send + Sync;

/// Who the default check lets decide: whoever uses this machine.
pub(super) const LOCAL: &str = "local";

/// Who a request that passed the check comes from, as the check named them: what the page
/// records as the decider of the decisions it sends.
#[derive(Debug, Clone)]
pub(super) struct Decider(pub(super) String);

/// The default check: a request from this machine (the loopback interface), sent to a
/// loopback name, made by [`LOCAL`]. The name matters as much as the address: a site whose name an attacker
/// points at 127.0.0.1 (DNS rebinding) reaches the page from this machine's browser, but under
/// its own name, which is refused here.
pub(super) fn loopback_only(request: &Parts) -> Result<String, String> {
    match request.extensions.get::<ConnectInfo<SocketAddr>>() {
        Some(ConnectInfo(peer)) if peer.ip().is_loopback() => {}
        Some(ConnectInfo(peer)) => {
            return Err(format!(
                "This page lets only this machine decide, and the request came from {}. An \
                 application that lets others decide gives the page a check of its own \
                 (ApprovalPage::with_authorize).",
                peer.ip()
            ))
        }
        None => {
            return Err(
                "This page lets only this machine decide, and cannot tell where the request \
                 came from (mounted without connection info). An application that mounts it \
                 gives the page a check of its own (ApprovalPage::with_authorize)."
                    .to_owned(),
            )
        }
    }
    let host = request
        .headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or_default();
    if is_loopback_name(host) {
        Ok(LOCAL.to_owned())
    } else {
        Err(format!(
            "This page answers to this machine's loopback names only (127.0.0.1, localhost, \
             [::1]), and the request was sent to `{host}`. Open it at the address the \
             application printed."
        ))
    }
}

/// Whether a `Host` header names this machine's loopback interface, with or without a port.
fn is_loopback_name(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        // An IPv6 literal: `[::1]` or `[::1]:8080`.
        Some(rest) => rest.split_once(']').map_or("", |(name, _)| name),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_are_told_from_others() {
        for host in [
            "127.0.0.1:8080",
            "localhost:1",
            "LOCALHOST",
            "[::1]:80",
            "127.0.0.2",
        ] {
            assert!(is_loopback_name(host), "{host}");
        }
        for host in [
            "evil.example:8080",
            "",
            "192.168.1.2:80",
            "[fe80::1]:80",
            "localhost.evil",
        ] {
            assert!(!is_loopback_name(host), "{host}");
        }
    }
}
