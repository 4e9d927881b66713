//! What the HTTP models' builders share: reading the environment, checking a base URL, and the
//! headers and client every request goes out with.

use std::env::VarError;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::Url;

use crate::model::http::{client_builder, describe};
use crate::model::ModelError;

/// The variable `name` as `lookup` finds it, trimmed; `None` when it is not set or blank.
pub(crate) fn env_var(
    lookup: &impl Fn(&str) -> Result<String, VarError>,
    name: &'static str,
) -> Result<Option<String>, ModelError> {
    match lookup(name) {
        Ok(value) if !value.trim().is_empty() => Ok(Some(value.trim().to_owned())),
        Ok(_) | Err(VarError::NotPresent) => Ok(None),
        Err(VarError::NotUnicode(_)) => Err(ModelError::InvalidEnv { name }),
    }
}

/// A base URL checked and parsed, and shown as given (no trailing `/`).
#[derive(Debug, Clone)]
pub struct BaseUrl {
    /// As the model's `base_url()` shows it.
    pub(crate) shown: String,
    /// The URL the endpoints are built under.
    pub(crate) url: Url,
}

impl BaseUrl {
    /// Checks `given`: an `http` or `https` URL that can have a path, and not already an
    /// endpoint (`is_endpoint` of its path, without a trailing `/`; refused with `hint`).
    pub(crate) fn parse(
        given: &str,
        is_endpoint: impl Fn(&str) -> bool,
        hint: &str,
    ) -> Result<Self, ModelError> {
        let url = Url::parse(given).map_err(|error| invalid_url(given, &error.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid_url(given, "the scheme must be http or https"));
        }
        if url.cannot_be_a_base() {
            return Err(invalid_url(given, "it cannot have a path"));
        }
        if is_endpoint(url.path().trim_end_matches('/')) {
            return Err(invalid_url(given, hint));
        }
        let shown = if url.query().is_none() && url.fragment().is_none() {
            url.as_str().trim_end_matches('/').to_owned()
        } else {
            url.to_string()
        };
        Ok(Self { shown, url })
    }

    /// The endpoint `segments` under the base URL (its query kept).
    pub(crate) fn endpoint<'s>(
        &self,
        segments: impl IntoIterator<Item = &'s str>,
    ) -> Result<Url, ModelError> {
        let mut endpoint = self.url.clone();
        endpoint
            .path_segments_mut()
            .map_err(|()| invalid_url(&self.shown, "it cannot have a path"))?
            .pop_if_empty()
            .extend(segments);
        Ok(endpoint)
    }
}

fn invalid_url(url: &str, reason: &str) -> ModelError {
    ModelError::InvalidBaseUrl {
        url: url.to_owned(),
        reason: reason.to_owned(),
    }
}

/// The headers of every request: `secret` (the API key's header, marked sensitive so it is
/// never logged), then `extra` in order. A blank secret is left out.
pub(crate) fn headers(
    secret: Option<(HeaderName, String)>,
    extra: &[(String, String)],
) -> Result<HeaderMap, ModelError> {
    let mut headers = HeaderMap::new();
    if let Some((name, value)) = secret {
        let mut value =
            HeaderValue::from_str(value.trim()).map_err(|_| ModelError::InvalidHeader {
                name: name.to_string(),
                reason: "the API key holds characters a header cannot".into(),
            })?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    for (name, value) in extra {
        let invalid = |reason: &str| ModelError::InvalidHeader {
            name: name.clone(),
            reason: reason.to_owned(),
        };
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| invalid("not a valid header name"))?;
        let value = HeaderValue::from_str(value)
            .map_err(|_| invalid("the value holds characters a header cannot"))?;
        headers.append(header, value);
    }
    Ok(headers)
}

/// The connection pool: `headers` on every request, this crate's user agent, and the connect
/// timeout (each attempt's own timeout is set per request), over the TLS [`client_builder`]
/// sets up.
pub(crate) fn client(
    headers: HeaderMap,
    connect_timeout: Duration,
) -> Result<reqwest::Client, ModelError> {
    client_builder()
        .default_headers(headers)
        .user_agent(concat!("tool-sdk/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(connect_timeout)
        .build()
        .map_err(|error| ModelError::Client(describe(&error)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_checked_and_shown_without_a_trailing_slash() {
        let parse = |given: &str| BaseUrl::parse(given, |path| path.ends_with("/x"), "no /x");
        let base = parse("http://h/v1/").unwrap();
        assert_eq!(base.shown, "http://h/v1");
        assert_eq!(
            base.endpoint(["a", "b:c"]).unwrap().as_str(),
            "http://h/v1/a/b:c"
        );
        let query = parse("https://h/v1?k=v").unwrap();
        assert_eq!(query.shown, "https://h/v1?k=v");
        assert_eq!(
            query.endpoint(["a"]).unwrap().as_str(),
            "https://h/v1/a?k=v"
        );
        for (bad, reason) in [
            ("localhost:8080/v1", "the scheme must be http or https"),
            ("ftp://h/v1", "the scheme must be http or https"),
            ("http://h/v1/x/", "no /x"),
        ] {
            assert_eq!(
                parse(bad).unwrap_err(),
                ModelError::InvalidBaseUrl {
                    url: bad.into(),
                    reason: reason.into()
                }
            );
        }
        assert!(matches!(
            parse("not a url"),
            Err(ModelError::InvalidBaseUrl { .. })
        ));
    }

    #[test]
    fn headers_keep_the_secret_out_of_errors() {
        let key = HeaderName::from_static("x-key");
        let headers = headers(
            Some((key.clone(), " k ".into())),
            &[("x-a".into(), "1".into()), ("x-a".into(), "2".into())],
        )
        .unwrap();
        assert_eq!(headers["x-key"], "k");
        assert!(headers["x-key"].is_sensitive());
        assert_eq!(headers.get_all("x-a").iter().count(), 2);

        let error = super::headers(Some((key, "k\nsecret".into())), &[]).unwrap_err();
        assert!(matches!(&error, ModelError::InvalidHeader { name, .. } if name == "x-key"));
        assert!(!error.to_string().contains("secret"), "{error}");
        assert!(matches!(
            super::headers(None, &[("bad header".into(), "v".into())]),
            Err(ModelError::InvalidHeader { .. })
        ));
    }

    #[test]
    fn variables_are_trimmed_and_blank_is_unset() {
        let lookup = |name: &str| match name {
            "SET" => Ok(" v ".to_owned()),
            "BLANK" => Ok("  ".to_owned()),
            "BAD" => Err(VarError::NotUnicode(std::ffi::OsString::new())),
            _ => Err(VarError::NotPresent),
        };
        assert_eq!(env_var(&lookup, "SET"), Ok(Some("v".into())));
        assert_eq!(env_var(&lookup, "BLANK"), Ok(None));
        assert_eq!(env_var(&lookup, "UNSET"), Ok(None));
        assert_eq!(
            env_var(&lookup, "BAD"),
            Err(ModelError::InvalidEnv { name: "BAD" })
        );
    }
}
