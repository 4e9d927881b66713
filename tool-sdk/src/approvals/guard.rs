//! Who may use the page, and the headers every answer carries.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use super::authorize::Decider;
use super::render::{html, message_page};
use super::shared::Shared;

/// What a browser may load and send from the page: its own script and style, nothing inline,
/// forms posted only back to the page, and no framing.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; \
     frame-ancestors 'none'; base-uri 'none'";

/// Every request passes the application's check (and a decision, the same-origin check);
/// every answer carries the security headers.
pub(super) async fn guard(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    let refusal = match (shared.authorize)(&parts) {
        Err(reason) => Some((StatusCode::FORBIDDEN, reason)),
        Ok(_) if parts.method == Method::POST && !same_origin(&parts.headers) => Some((
            StatusCode::FORBIDDEN,
            "This decision was sent from another site, and is refused: decide on this page."
                .to_owned(),
        )),
        Ok(who) => {
            // Put there by the check alone: the decisions this request sends are recorded
            // as theirs.
            parts.extensions.insert(Decider(who));
            None
        }
    };
    let mut response = match refusal {
        Some((status, reason)) => html(status, message_page(&shared.title, "Not allowed", &reason)),
        None => next.run(Request::from_parts(parts, body)).await,
    };
    secure(response.headers_mut());
    response
}

/// Whether a form post comes from a page of this origin: its `Origin` (sent by browsers with
/// every POST) names the host the request was sent to. A request without one (not a browser)
/// passes: the CSRF token guards it.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    origin
        .split_once("://")
        .is_some_and(|(_, authority)| authority.eq_ignore_ascii_case(host))
}

/// The headers every answer carries, hyper's own included (see `secured_io`).
pub(super) const SECURITY_HEADERS: [(&str, &str); 5] = [
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("x-content-type-options", "nosniff"),
    // Not `no-referrer`: with it, browsers send `Origin: null` with the page's own forms, and
    // the same-origin check could not tell them from another site's.
    ("referrer-policy", "same-origin"),
    ("x-frame-options", "DENY"),
    ("cache-control", "no-store"),
];

fn secure(headers: &mut HeaderMap) {
    for (name, value) in SECURITY_HEADERS {
        headers.insert(
            header::HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(name.clone(), value.parse().expect("a header value"));
        }
        headers
    }

    #[test]
    fn a_post_from_another_origin_is_told_apart() {
        let here = [(header::HOST, "127.0.0.1:8080")];
        assert!(same_origin(&with(&here)));
        let ours = [
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "http://127.0.0.1:8080"),
        ];
        assert!(same_origin(&with(&ours)));
        let theirs = [
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "https://evil.example"),
        ];
        assert!(!same_origin(&with(&theirs)));
        let null = [(header::HOST, "127.0.0.1:8080"), (header::ORIGIN, "null")];
        assert!(!same_origin(&with(&null)));
    }
}
