//! Configuring an [`AnthropicModel`]: the builder, the environment, and what can be wrong with
//! either.

use std::env::VarError;
use std::fmt;
use std::time::Duration;

use reqwest::header::HeaderName;

use crate::model::anthropic::AnthropicModel;
use crate::model::http::{client, env_var, headers, BaseUrl, HttpClient, RetryPolicy};
use crate::model::ModelError;

/// The base URL of Anthropic's API; requests go to `{base URL}/v1/messages`.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// The API version sent in `anthropic-version` by default.
pub const DEFAULT_API_VERSION: &str = "2023-06-01";
/// The variable [`AnthropicModel::from_env`] reads the API key from.
pub const ENV_API_KEY: &str = "ANTHROPIC_API_KEY";
/// The variable [`AnthropicModel::from_env`] reads the model's name from.
pub const ENV_MODEL: &str = "ANTHROPIC_MODEL";
/// The variable [`AnthropicModel::from_env`] reads the base URL from (optional).
pub const ENV_BASE_URL: &str = "ANTHROPIC_BASE_URL";

/// How long one attempt may take by default (as Anthropic's own SDKs).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// How long connecting may take by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How many times a failed request is tried again by default (as Anthropic's own SDKs).
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// The first wait before a retry; it doubles at each retry, up to [`DEFAULT_MAX_BACKOFF`].
pub const DEFAULT_INITIAL_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait between two retries, unless the server asks for longer.
pub const DEFAULT_MAX_BACKOFF: Duration = Duration::from_secs(8);
/// The longest wait honoured when the server asks for one (`retry-after`).
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// The `max_tokens` of a request whose options set none: the API requires one.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Builds an [`AnthropicModel`]. An API key and a model are required.
///
/// ```
/// use std::time::Duration;
/// use tool_sdk::model::anthropic::AnthropicModel;
///
/// let model = AnthropicModel::builder()
///     .with_api_key("sk-ant-...")
///     .with_model("claude-sonnet-4-5")
///     .with_max_tokens(2048)
///     .with_timeout(Duration::from_secs(120))
///     .build()?;
/// assert_eq!(model.base_url(), "https://api.anthropic.com");
/// # Ok::<(), tool_sdk::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct AnthropicBuilder {
    base_url: String,
    api_key: Option<String>,
    model: Option<String>,
    version: String,
    max_tokens: u32,
    timeout: Duration,
    connect_timeout: Duration,
    retry: RetryPolicy,
    headers: Vec<(String, String)>,
    strict: bool,
}

impl Default for AnthropicBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl AnthropicBuilder {
    /// Anthropic's API, the default version, timeouts and retries; no key, no model yet.
    pub fn new() -> Self {
        Self {
            base_url: ANTHROPIC_BASE_URL.to_owned(),
            api_key: None,
            model: None,
            version: DEFAULT_API_VERSION.to_owned(),
            max_tokens: DEFAULT_MAX_TOKENS,
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            retry: RetryPolicy {
                max_retries: DEFAULT_MAX_RETRIES,
                initial_backoff: DEFAULT_INITIAL_BACKOFF,
                max_backoff: DEFAULT_MAX_BACKOFF,
                max_retry_after: DEFAULT_MAX_RETRY_AFTER,
            },
            headers: Vec::new(),
            strict: false,
        }
    }

    /// A builder set from the environment, as [`AnthropicModel::from_env`] reads it, to
    /// change other settings before [`build`](Self::build).
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingEnv`] when `ANTHROPIC_API_KEY` or `ANTHROPIC_MODEL` is not set;
    /// [`ModelError::InvalidEnv`] when one is not Unicode.
    pub fn from_env() -> Result<Self, ModelError> {
        Self::from_lookup(|name| std::env::var(name))
    }

    fn from_lookup(lookup: impl Fn(&str) -> Result<String, VarError>) -> Result<Self, ModelError> {
        let var = |name: &'static str| env_var(&lookup, name);
        let api_key = var(ENV_API_KEY)?.ok_or(ModelError::MissingEnv {
            name: ENV_API_KEY,
            hint: "set it to an Anthropic API key (sk-ant-...)",
        })?;
        let model = var(ENV_MODEL)?.ok_or(ModelError::MissingEnv {
            name: ENV_MODEL,
            hint: "set it to the model's name, such as claude-sonnet-4-5",
        })?;
        let mut builder = Self::new().with_api_key(api_key).with_model(model);
        if let Some(url) = var(ENV_BASE_URL)? {
            builder = builder.with_base_url(url);
        }
        Ok(builder)
    }

    /// The base URL the API's paths are under (default [`ANTHROPIC_BASE_URL`]); requests go to
    /// `{base URL}/v1/messages`.
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// The API key, sent as `x-api-key`.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The model's name, such as `claude-sonnet-4-5`.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The `anthropic-version` header (default [`DEFAULT_API_VERSION`]).
    pub fn with_version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// The `max_tokens` of requests whose [`ChatOptions`](crate::model::ChatOptions) set none
    /// (default [`DEFAULT_MAX_TOKENS`]).
    pub fn with_max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = tokens;
        self
    }

    /// How long one attempt may take (default [`DEFAULT_TIMEOUT`]); for a stream, its start
    /// and each wait between two pieces.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long connecting may take (default [`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How many times a failed request is tried again (default [`DEFAULT_MAX_RETRIES`]).
    pub fn with_max_retries(mut self, retries: u32) -> Self {
        self.retry.max_retries = retries;
        self
    }

    /// The first wait before a retry, and the longest (defaults [`DEFAULT_INITIAL_BACKOFF`]
    /// and [`DEFAULT_MAX_BACKOFF`]).
    pub fn with_retry_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.retry.initial_backoff = initial;
        self.retry.max_backoff = max;
        self
    }

    /// The longest wait honoured when the server asks for one (default
    /// [`DEFAULT_MAX_RETRY_AFTER`]).
    pub fn with_max_retry_after(mut self, max: Duration) -> Self {
        self.retry.max_retry_after = max;
        self
    }

    /// A header sent with every request (a beta flag, a gateway's header, ...).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Strict tool use (default off): every tool's schema is sent lowered to the Anthropic
    /// strict dialect ([`Dialect::AnthropicStrict`](crate::describe::Dialect)) with
    /// `"strict": true`. A tool strict mode cannot describe stops a run before the first
    /// request, naming the tool, the place and the rule.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The model.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingEnv`] naming `ANTHROPIC_API_KEY` when no key was given (the API
    /// takes no request without one); [`ModelError::MissingModel`] when no model was;
    /// [`ModelError::InvalidBaseUrl`] when the URL is not `http`/`https` or already ends in
    /// `/v1/messages`; [`ModelError::InvalidHeader`] when the key, the version or a header
    /// cannot be sent; [`ModelError::Client`] when the HTTP client cannot be set up.
    pub fn build(self) -> Result<AnthropicModel, ModelError> {
        let base = BaseUrl::parse(
            self.base_url.trim(),
            |path| path.ends_with("/messages"),
            "give the base URL, without /v1/messages (such as https://api.anthropic.com)",
        )?;
        let endpoint = base.endpoint(["v1", "messages"])?;
        let model = self
            .model
            .map(|model| model.trim().to_owned())
            .filter(|model| !model.is_empty())
            .ok_or(ModelError::MissingModel)?;
        let api_key = self
            .api_key
            .map(|key| key.trim().to_owned())
            .filter(|key| !key.is_empty())
            .ok_or(ModelError::MissingEnv {
                name: ENV_API_KEY,
                hint: "give the key with `with_api_key`, or set ANTHROPIC_API_KEY",
            })?;
        let mut extra = vec![(
            "anthropic-version".to_owned(),
            self.version.trim().to_owned(),
        )];
        extra.extend(self.headers.iter().cloned());
        let secret = Some((HeaderName::from_static("x-api-key"), api_key));
        let http = client(headers(secret, &extra)?, self.connect_timeout)?;
        let base_url = base.shown;
        Ok(AnthropicModel {
            client: HttpClient {
                http,
                timeout: self.timeout,
                retry: self.retry,
            },
            endpoint,
            base_url,
            model,
            max_tokens: self.max_tokens,
            strict: self.strict,
        })
    }
}

impl fmt::Debug for AnthropicBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnthropicBuilder")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("version", &self.version)
            .field("max_tokens", &self.max_tokens)
            .field("strict", &self.strict)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Result<String, VarError> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
                .ok_or(VarError::NotPresent)
        }
    }

    #[test]
    fn the_environment_names_key_model_and_base_url() {
        let model = AnthropicBuilder::from_lookup(lookup(&[
            ("ANTHROPIC_API_KEY", "sk-ant-x"),
            ("ANTHROPIC_MODEL", "claude-x"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
        ]))
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(model.base_url(), "http://127.0.0.1:9");
        assert_eq!(model.model(), "claude-x");
        assert_eq!(model.endpoint.as_str(), "http://127.0.0.1:9/v1/messages");
        let debug = format!("{model:?}");
        assert!(!debug.contains("sk-ant-x"), "{debug}");
    }

    #[test]
    fn what_is_missing_or_unusable_is_named() {
        let missing =
            |vars: &[(&str, &str)]| AnthropicBuilder::from_lookup(lookup(vars)).unwrap_err();
        assert!(matches!(
            missing(&[("ANTHROPIC_MODEL", "m")]),
            ModelError::MissingEnv {
                name: "ANTHROPIC_API_KEY",
                ..
            }
        ));
        assert!(matches!(
            missing(&[("ANTHROPIC_API_KEY", "k")]),
            ModelError::MissingEnv {
                name: "ANTHROPIC_MODEL",
                ..
            }
        ));
        let build = |builder: AnthropicBuilder| builder.build().unwrap_err();
        assert_eq!(
            build(AnthropicBuilder::new().with_api_key("k")),
            ModelError::MissingModel
        );
        assert!(matches!(
            build(AnthropicBuilder::new().with_model("m")),
            ModelError::MissingEnv { .. }
        ));
        let base = AnthropicBuilder::new().with_api_key("k").with_model("m");
        for url in [
            "ftp://x",
            "not a url",
            "https://api.anthropic.com/v1/messages",
        ] {
            assert!(
                matches!(
                    build(base.clone().with_base_url(url)),
                    ModelError::InvalidBaseUrl { .. }
                ),
                "{url}"
            );
        }
        assert!(matches!(
            build(base.clone().with_header("bad header", "x")),
            ModelError::InvalidHeader { .. }
        ));
        assert!(matches!(
            build(base.with_api_key("line\nbreak")),
            ModelError::InvalidHeader { .. }
        ));
    }
}
