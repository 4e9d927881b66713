//! The page's defence against cross-site requests: a decision carries a token that only a page
//! served to the same browser holds.
//!
//! Each browser gets a random session value in a cookie (`HttpOnly`, `SameSite=Lax`: sent on
//! a top-level visit from a link elsewhere, never with another site's post); the
//! form carries the HMAC of that value under a key of this page's own. A site elsewhere can
//! make the browser send the cookie, but cannot read the page, so it cannot write the token.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::Mac as _;

use crate::store::{random_token, HmacSha256, StoreError};

/// The cookie holding the browser's session value.
pub(super) const COOKIE: &str = "tool_sdk_approvals";

/// The page's key for CSRF tokens, drawn once per page, ready to sign.
#[derive(Clone)]
pub(super) struct Csrf {
    keyed: HmacSha256,
}

impl Csrf {
    pub(super) fn new() -> Result<Self, StoreError> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key)
            .map_err(|e| StoreError::Backend(format!("no randomness for the page's key: {e}")))?;
        let keyed = <HmacSha256 as hmac::Mac>::new_from_slice(&key)
            .map_err(|e| StoreError::Backend(format!("the page's key is unusable: {e}")))?;
        Ok(Self { keyed })
    }

    fn mac(&self, session: &str) -> HmacSha256 {
        let mut mac = self.keyed.clone();
        mac.update(session.as_bytes());
        mac
    }

    /// The token a form served to the browser holding `session` carries.
    pub(super) fn token(&self, session: &str) -> String {
        URL_SAFE_NO_PAD.encode(self.mac(session).finalize().into_bytes())
    }

    /// Whether `token` is the one for `session`, compared in constant time.
    pub(super) fn verify(&self, session: &str, token: &str) -> bool {
        let Ok(tag) = URL_SAFE_NO_PAD.decode(token) else {
            return false;
        };
        self.mac(session).verify_slice(&tag).is_ok()
    }
}

/// A fresh session value for a browser that has none.
pub(super) fn new_session() -> Result<String, StoreError> {
    random_token()
}

/// The session values in a request's `Cookie` headers, in the order sent. A browser sends
/// every cookie of the name that applies: ours, and any other page on this machine set (a
/// page on another port shares our cookies, and may set one with a longer path, sent first).
/// A decision is accepted when any of them verifies, so such a cookie cannot lock the page.
pub(super) fn sessions_of(headers: &axum::http::HeaderMap) -> Vec<&str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|cookies| cookies.split(';'))
        .filter_map(|cookie| cookie.trim().split_once('='))
        .filter(|(name, value)| *name == COOKIE && !value.is_empty())
        .map(|(_, value)| value)
        .collect()
}

/// The session value the page's forms are signed for: the first one sent, if any.
pub(super) fn session_of(headers: &axum::http::HeaderMap) -> Option<String> {
    sessions_of(headers)
        .first()
        .map(|&session| session.to_owned())
}

impl Csrf {
    /// Whether `token` is the one for any of the `sessions` a request carries.
    pub(super) fn verify_any(&self, sessions: &[&str], token: &str) -> bool {
        sessions.iter().any(|session| self.verify(session, token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_verifies_for_its_session_only() {
        let csrf = Csrf::new().expect("randomness");
        let token = csrf.token("session-a");
        assert!(csrf.verify("session-a", &token));
        assert!(!csrf.verify("session-b", &token));
        assert!(!csrf.verify("session-a", ""));
        assert!(!csrf.verify("session-a", "not base64 !"));
        let other_page = Csrf::new().expect("randomness");
        assert!(!other_page.verify("session-a", &token));
    }

    #[test]
    fn the_session_is_read_among_other_cookies() {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(
            axum::http::header::COOKIE,
            "theme=dark; tool_sdk_approvals=abc; other=1"
                .parse()
                .expect("a header"),
        );
        assert_eq!(session_of(&headers).as_deref(), Some("abc"));
        assert_eq!(session_of(&axum::http::HeaderMap::new()), None);
    }

    #[test]
    fn a_cookie_another_page_set_cannot_shadow_the_session() {
        // Another page on this machine set `tool_sdk_approvals=x; path=/decide`: the browser
        // sends it first, then the page's own.
        let csrf = Csrf::new().expect("randomness");
        let token = csrf.token("ours");
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(
            axum::http::header::COOKIE,
            "tool_sdk_approvals=x; tool_sdk_approvals=ours"
                .parse()
                .expect("a header"),
        );
        let sessions = sessions_of(&headers);
        assert_eq!(sessions, ["x", "ours"]);
        assert!(csrf.verify_any(&sessions, &token));
        assert!(!csrf.verify_any(&sessions, &csrf.token("y")));
        assert!(!csrf.verify_any(&[], &token));
    }
}
