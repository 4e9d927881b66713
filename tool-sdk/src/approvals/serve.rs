//! The page's own server, for [`BoundPage::serve`](super::BoundPage::serve): one request per
//! connection, each answer secured however it is made.
//!
//! One request per connection costs a loopback connection per request (the page asks for
//! its list every 2 s), and buys this: every answer is the first and only one of its
//! connection, so the connection can give hyper's own answers (a request it cannot parse, a
//! URI or headers too large) the security headers that the page's router gives its own
//! ([`SecuredIo`]).

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_service::Service as _;

use super::secured_io::SecuredIo;

/// How long to wait before accepting again after a failure that is not the connection's own.
const ACCEPT_RETRY: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` until `shutdown` is cancelled, then lets the requests in
/// flight finish.
pub(super) async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let mut http = hyper::server::conn::http1::Builder::new();
    // One request per connection (see the module); a client that does not finish its
    // request's headers within hyper's 30 s is cut off.
    http.keep_alive(false).timer(TokioTimer::new());
    let connections = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) if is_connection_error(&error) => continue,
            Err(error) => {
                tracing::warn!(%error, "the approval page cannot accept a connection; retrying in 1 s");
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    () = tokio::time::sleep(ACCEPT_RETRY) => continue,
                }
            }
        };
        let router = router.clone();
        // Who asks, for the page's check (`ConnectInfo`, as axum's own server gives it).
        let requests = service_fn(move |mut request: Request<Incoming>| {
            request
                .extensions_mut()
                .insert(ConnectInfo::<SocketAddr>(peer));
            router.clone().call(request)
        });
        let connection = http.serve_connection(TokioIo::new(SecuredIo::new(stream)), requests);
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let mut connection = std::pin::pin!(connection);
            let served = tokio::select! {
                served = connection.as_mut() => served,
                () = shutdown.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = served {
                tracing::debug!(%error, "an approval page connection ended with an error");
            }
        });
    }
    drop(listener);
    connections.close();
    connections.wait().await;
    Ok(())
}

/// A failure of one connection (gone before it was accepted), not of the listener.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}
