//! Configuring an [`OpenAiCompatibleModel`]: the builder, the environment, and what can be
//! wrong with either.

use std::env::VarError;
use std::fmt;
use std::time::Duration;

use reqwest::header::AUTHORIZATION;
use reqwest::Url;

use crate::model::http::{client, env_var, headers, BaseUrl, HttpClient, RetryPolicy};
use crate::model::openai::{MediaFallback, OpenAiCompatibleModel};
use crate::model::ModelError;

/// The base URL of OpenAI's own API.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// The variable [`OpenAiCompatibleModel::from_env`] reads the base URL from.
pub const ENV_BASE_URL: &str = "OPENAI_BASE_URL";
/// The variable [`OpenAiCompatibleModel::from_env`] reads the API key from.
pub const ENV_API_KEY: &str = "OPENAI_API_KEY";
/// The variable [`OpenAiCompatibleModel::from_env`] reads the model's name from.
pub const ENV_MODEL: &str = "OPENAI_MODEL";

/// How long one attempt may take by default (as OpenAI's own SDKs): local models on a CPU can
/// take minutes for a whole answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// How long connecting may take by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How many times a failed request is tried again by default (as OpenAI's own SDKs).
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// The longest wait a server's `Retry-After` gets by default.
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
const DEFAULT_INITIAL_BACKOFF: Duration = Duration::from_millis(500);
const DEFAULT_MAX_BACKOFF: Duration = Duration::from_secs(8);

/// Builds an [`OpenAiCompatibleModel`].
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use tool_sdk::model::openai::OpenAiCompatibleModel;
///
/// let model = OpenAiCompatibleModel::builder()
///     .with_base_url("https://api.openai.com/v1")
///     .with_api_key("sk-...")
///     .with_model("gpt-4o-mini")
///     .with_timeout(Duration::from_secs(120))
///     .with_max_retries(4)
///     .build()?;
/// # Ok::<(), tool_sdk::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct OpenAiCompatibleBuilder {
    base_url: Option<String>,
    api_key: Option<String>,
    model: Option<String>,
    timeout: Duration,
    connect_timeout: Duration,
    retry: RetryPolicy,
    headers: Vec<(String, String)>,
    strict: bool,
    media: MediaFallback,
}

impl Default for OpenAiCompatibleBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl OpenAiCompatibleBuilder {
    /// A builder with the default timeouts and retries, and no base URL, key or model.
    pub fn new() -> Self {
        Self {
            base_url: None,
            api_key: None,
            model: None,
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
            media: MediaFallback::Placeholder,
        }
    }

    /// A builder set from the environment, as [`OpenAiCompatibleModel::from_env`] reads it, to
    /// change other settings before [`build`](Self::build).
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingEnv`] when `OPENAI_MODEL` is not set, or `OPENAI_API_KEY` is not
    /// set while the base URL is OpenAI's; [`ModelError::InvalidEnv`] when one is not
    /// Unicode.
    pub fn from_env() -> Result<Self, ModelError> {
        Self::from_lookup(|name| std::env::var(name))
    }

    fn from_lookup(lookup: impl Fn(&str) -> Result<String, VarError>) -> Result<Self, ModelError> {
        let var = |name: &'static str| env_var(&lookup, name);
        let base_url = var(ENV_BASE_URL)?.unwrap_or_else(|| OPENAI_BASE_URL.to_owned());
        let model = var(ENV_MODEL)?.ok_or(ModelError::MissingEnv {
            name: ENV_MODEL,
            hint: "set it to the model's name as the server knows it, such as gpt-4o-mini, or qwen2.5 on Ollama",
        })?;
        let api_key = var(ENV_API_KEY)?;
        let is_openai =
            Url::parse(&base_url).is_ok_and(|url| url.host_str() == Some("api.openai.com"));
        if api_key.is_none() && is_openai {
            return Err(ModelError::MissingEnv {
                name: ENV_API_KEY,
                hint: "OpenAI's API needs a key; for another server set OPENAI_BASE_URL, such as http://localhost:11434/v1 for Ollama",
            });
        }
        let mut builder = Self::new().with_base_url(base_url).with_model(model);
        builder.api_key = api_key;
        Ok(builder)
    }

    /// The base URL the API's paths are under, such as `https://api.openai.com/v1` or
    /// `http://localhost:11434/v1` (see the [module documentation](crate::model::openai)); requests go
    /// to `{base URL}/chat/completions`.
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The API key, sent as `Authorization: Bearer KEY`; local servers usually need none.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The model's name as the server knows it (`gpt-4o-mini`, `qwen2.5`, ...).
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// How long one attempt may take (default [`DEFAULT_TIMEOUT`]); for a stream, the wait
    /// for it to start and each wait between two of its pieces.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long connecting may take (default [`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How many times a request failing with 408, 429, 5xx, a timeout or a connection error
    /// is tried again (default [`DEFAULT_MAX_RETRIES`]; `0` never retries).
    pub fn with_max_retries(mut self, retries: u32) -> Self {
        self.retry.max_retries = retries;
        self
    }

    /// The backoff between attempts when the server does not say how long to wait: `initial`
    /// before the first retry, doubling each time up to `max`, each less up to a quarter at
    /// random (defaults 500 ms and 8 s).
    pub fn with_retry_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.retry.initial_backoff = initial;
        self.retry.max_backoff = max;
        self
    }

    /// The longest wait a server's `Retry-After` gets (default [`DEFAULT_MAX_RETRY_AFTER`]).
    pub fn with_max_retry_after(mut self, max: Duration) -> Self {
        self.retry.max_retry_after = max;
        self
    }

    /// A header sent with every request (an organization or project header, a gateway's
    /// routing header, ...).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Strict function calling (default off): every tool's parameters are sent lowered to the
    /// OpenAI strict dialect ([`Dialect::OpenAiStrict`](crate::describe::Dialect)) with
    /// `"strict": true`, so the model's arguments always match the schema. An optional
    /// parameter becomes required and nullable there; the `null` a model sends for it decodes
    /// as left out. A tool strict mode cannot describe (a map with free keys, say) stops a run
    /// before the first request, naming the tool, the place and the rule.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// How tool results' images and files are sent (default [`MediaFallback::Placeholder`]):
    /// Chat Completions tool messages take text only.
    pub fn with_media_fallback(mut self, fallback: MediaFallback) -> Self {
        self.media = fallback;
        self
    }

    /// The model.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingBaseUrl`] or [`ModelError::MissingModel`] when one was not set;
    /// [`ModelError::InvalidBaseUrl`] when the URL is not `http`/`https` or already ends in
    /// `/chat/completions`; [`ModelError::InvalidHeader`] when the key or a header cannot be
    /// sent; [`ModelError::Client`] when the HTTP client cannot be set up.
    pub fn build(self) -> Result<OpenAiCompatibleModel, ModelError> {
        let given = self.base_url.ok_or(ModelError::MissingBaseUrl)?;
        let base = BaseUrl::parse(
            given.trim(),
            |path| path.ends_with("/chat/completions"),
            "give the base URL, without /chat/completions (such as http://localhost:11434/v1)",
        )?;
        let endpoint = base.endpoint(["chat", "completions"])?;
        let model = self
            .model
            .map(|model| model.trim().to_owned())
            .filter(|model| !model.is_empty())
            .ok_or(ModelError::MissingModel)?;
        let api_key = self.api_key.filter(|key| !key.trim().is_empty());
        let secret = api_key
            .as_ref()
            .map(|key| (AUTHORIZATION, format!("Bearer {}", key.trim())));
        let http = client(headers(secret, &self.headers)?, self.connect_timeout)?;
        Ok(OpenAiCompatibleModel {
            client: HttpClient {
                http,
                timeout: self.timeout,
                retry: self.retry,
            },
            endpoint,
            base_url: base.shown,
            model,
            has_api_key: api_key.is_some(),
            strict: self.strict,
            media: self.media,
        })
    }
}

impl fmt::Debug for OpenAiCompatibleBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiCompatibleBuilder")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("retry", &self.retry)
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|(name, _)| name)
                    .collect::<Vec<_>>(),
            )
            .field("strict", &self.strict)
            .field("media", &self.media)
            .finish()
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
    fn the_environment_configures_a_local_server_without_a_key() {
        let builder = OpenAiCompatibleBuilder::from_lookup(lookup(&[
            (ENV_BASE_URL, "http://localhost:11434/v1/"),
            (ENV_MODEL, " qwen2.5 "),
        ]))
        .unwrap();
        let model = builder.build().unwrap();
        assert_eq!(model.base_url(), "http://localhost:11434/v1");
        assert_eq!(model.model(), "qwen2.5");
        assert_eq!(
            model.endpoint.as_str(),
            "http://localhost:11434/v1/chat/completions"
        );
        assert!(!model.has_api_key);
    }

    #[test]
    fn missing_variables_are_named() {
        let error = OpenAiCompatibleBuilder::from_lookup(lookup(&[(ENV_BASE_URL, "http://h/v1")]))
            .unwrap_err();
        assert!(matches!(
            error,
            ModelError::MissingEnv {
                name: ENV_MODEL,
                ..
            }
        ));
        assert!(error
            .to_string()
            .starts_with("the environment variable OPENAI_MODEL is not set"));

        let error = OpenAiCompatibleBuilder::from_lookup(lookup(&[
            (ENV_MODEL, "gpt-4o-mini"),
            (ENV_API_KEY, "  "),
        ]))
        .unwrap_err();
        assert!(
            matches!(
                error,
                ModelError::MissingEnv {
                    name: ENV_API_KEY,
                    ..
                }
            ),
            "OpenAI (the default base URL) needs a key: {error}"
        );

        let model = OpenAiCompatibleBuilder::from_lookup(lookup(&[
            (ENV_MODEL, "gpt-4o-mini"),
            (ENV_API_KEY, "sk-test"),
        ]))
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(model.base_url(), OPENAI_BASE_URL);
        assert!(model.has_api_key);
        assert!(!format!("{model:?}").contains("sk-test"), "{model:?}");

        let not_unicode = |_: &str| Err(VarError::NotUnicode(std::ffi::OsString::new()));
        assert_eq!(
            OpenAiCompatibleBuilder::from_lookup(not_unicode).unwrap_err(),
            ModelError::InvalidEnv { name: ENV_BASE_URL }
        );
    }

    #[test]
    fn unusable_settings_are_refused_with_the_reason() {
        let build = |url: &str| {
            OpenAiCompatibleModel::builder()
                .with_base_url(url)
                .with_model("m")
                .build()
                .map(|model| model.endpoint.to_string())
        };
        assert_eq!(
            build("http://localhost:8080").unwrap(),
            "http://localhost:8080/chat/completions"
        );
        assert_eq!(
            build("https://gateway.example/openai/v1?api-version=2024-10-21").unwrap(),
            "https://gateway.example/openai/v1/chat/completions?api-version=2024-10-21"
        );
        for bad in [
            "localhost:11434/v1",
            "ftp://h/v1",
            "http://h/v1/chat/completions",
            "not a url",
        ] {
            assert!(
                matches!(build(bad), Err(ModelError::InvalidBaseUrl { .. })),
                "{bad}"
            );
        }
        assert_eq!(
            OpenAiCompatibleModel::builder()
                .with_model("m")
                .build()
                .unwrap_err(),
            ModelError::MissingBaseUrl
        );
        assert_eq!(
            OpenAiCompatibleModel::builder()
                .with_base_url("http://h/v1")
                .with_model(" ")
                .build()
                .unwrap_err(),
            ModelError::MissingModel
        );
        let error = OpenAiCompatibleModel::builder()
            .with_base_url("http://h/v1")
            .with_model("m")
            .with_api_key("sk-\nsecret")
            .build()
            .unwrap_err();
        assert!(
            matches!(&error, ModelError::InvalidHeader { name, .. } if name == "authorization")
        );
        assert!(!error.to_string().contains("secret"), "{error}");
        assert!(matches!(
            OpenAiCompatibleModel::builder()
                .with_base_url("http://h/v1")
                .with_model("m")
                .with_header("bad header", "v")
                .build(),
            Err(ModelError::InvalidHeader { .. })
        ));
    }
}
