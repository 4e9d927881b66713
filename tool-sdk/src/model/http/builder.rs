//! Configuring an [`HttpModel`]: the settings every provider shares, set one way, read from the
//! environment one way, and checked once when the model is built.

use std::env::VarError;
use std::fmt;
use std::time::Duration;

use crate::model::http::Provider;
use crate::model::http::{
    client, env_var, headers, is_vendor_api, BaseUrl, HttpClient, HttpModel, RetryPolicy,
};
use crate::model::ModelError;

/// How long one attempt may take by default (as OpenAI's own SDKs): local models on a CPU can
/// take minutes for a whole answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// How long connecting may take by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How many times a failed request is tried again by default (as OpenAI's own SDKs).
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// The longest wait a server's `Retry-After` gets by default.
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// The wait before the first retry by default, when the server says nothing.
pub const DEFAULT_INITIAL_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait between two attempts by default, when the server says nothing.
pub const DEFAULT_MAX_BACKOFF: Duration = Duration::from_secs(8);

/// Builds an [`HttpModel`]: the settings every provider shares are set here, the same way for
/// each; a provider's own (`with_strict`, `with_max_tokens`, ...) are set beside them.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use tool_sdk::model::openai::OpenAiCompatibleModel;
///
/// let model = OpenAiCompatibleModel::builder()
///     .with_api_key("sk-...")
///     .with_model("gpt-4o-mini")
///     .with_timeout(Duration::from_secs(120))
///     .with_max_retries(4)
///     .build()?;
/// assert_eq!(model.base_url(), "https://api.openai.com/v1");
/// # Ok::<(), tool_sdk::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct HttpModelBuilder<P> {
    base_url: String,
    api_key: Option<String>,
    model: Option<String>,
    timeout: Duration,
    connect_timeout: Duration,
    retry: RetryPolicy,
    headers: Vec<(String, String)>,
    pub(crate) provider: P,
}

impl<P: Provider> Default for HttpModelBuilder<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P: Provider> HttpModelBuilder<P> {
    /// The provider's own API, the default timeouts and retries; no key, no model yet.
    pub fn new() -> Self {
        Self {
            base_url: P::BASE_URL.to_owned(),
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
            provider: P::default(),
        }
    }

    /// A builder set from the provider's three variables (`OPENAI_BASE_URL`, `OPENAI_MODEL`,
    /// `OPENAI_API_KEY`; `ANTHROPIC_...`; `GEMINI_...`), to change other settings before
    /// [`build`](Self::build). A blank variable counts as not set; without the base URL's,
    /// the provider's own API is used.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingEnv`] naming the variable that is missing: the model's, or the
    /// key's when the provider's own API is used (a local server needs none);
    /// [`ModelError::InvalidEnv`] when one is not Unicode.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use tool_sdk::model::http::HttpModelBuilder;
    /// use tool_sdk::model::openai::OpenAiCompatible;
    ///
    /// // OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen2.5
    /// let model = HttpModelBuilder::<OpenAiCompatible>::from_env()?
    ///     .with_timeout(Duration::from_secs(30))
    ///     .build()?;
    /// # Ok::<(), tool_sdk::model::ModelError>(())
    /// ```
    pub fn from_env() -> Result<Self, ModelError> {
        Self::from_lookup(|name| std::env::var(name))
    }

    pub(crate) fn from_lookup(
        lookup: impl Fn(&str) -> Result<String, VarError>,
    ) -> Result<Self, ModelError> {
        let env = P::ENV;
        let var = |name: &'static str| env_var(&lookup, name);
        let mut builder = Self::new();
        if let Some(url) = var(env.base_url)? {
            builder.base_url = url;
        }
        builder.model = Some(var(env.model)?.ok_or(ModelError::MissingEnv {
            name: env.model,
            hint: env.model_hint,
        })?);
        builder.api_key = var(env.api_key)?;
        if builder.api_key.is_none() && builder.key_needed() {
            return Err(ModelError::MissingEnv {
                name: env.api_key,
                hint: env.key_hint,
            });
        }
        Ok(builder)
    }

    /// The base URL the API's paths are under (default: the provider's own API), such as
    /// `http://localhost:11434/v1` for Ollama's Chat Completions.
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// The API key, sent in the provider's header (`Authorization: Bearer KEY`, `x-api-key`,
    /// `x-goog-api-key`), marked sensitive so it is never logged. Local servers usually need
    /// none.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The model's name as the server knows it (`gpt-4o-mini`, `claude-sonnet-4-5`,
    /// `gemini-2.5-flash`, `qwen2.5`, ...).
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
    /// random (defaults [`DEFAULT_INITIAL_BACKOFF`] and [`DEFAULT_MAX_BACKOFF`]).
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

    /// The model.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingModel`] when none was set; [`ModelError::MissingApiKey`] when the
    /// provider's own API is used without a key; [`ModelError::InvalidBaseUrl`] when the URL
    /// is not `http`/`https` or already names an endpoint (`.../chat/completions`);
    /// [`ModelError::InvalidHeader`] when the key or a header cannot be sent;
    /// [`ModelError::Client`] when the HTTP client cannot be set up.
    pub fn build(mut self) -> Result<HttpModel<P>, ModelError> {
        let base = BaseUrl::parse(self.base_url.trim(), P::is_endpoint, P::ENDPOINT_HINT)?;
        let model = self
            .model
            .map(|model| model.trim().to_owned())
            .filter(|model| !model.is_empty())
            .ok_or(ModelError::MissingModel)?;
        let endpoints = P::endpoints(&base, &model)?;
        let api_key = self.api_key.filter(|key| !key.trim().is_empty());
        if api_key.is_none() && is_vendor_api(&base.url, P::BASE_URL) {
            return Err(ModelError::MissingApiKey {
                variable: P::ENV.api_key,
            });
        }
        self.provider.settle(&base);
        let mut extra = self.provider.headers();
        extra.extend(self.headers);
        let secret = api_key
            .as_deref()
            .map(|key| P::KEY_HEADER.holding(key.trim()));
        let http = client(headers(secret, &extra)?, self.connect_timeout)?;
        Ok(HttpModel {
            client: HttpClient {
                http,
                timeout: self.timeout,
                retry: self.retry,
            },
            endpoints,
            base_url: base.shown,
            model,
            has_api_key: api_key.is_some(),
            provider: self.provider,
        })
    }

    /// The model, and the endpoint `segments` under its base URL: for what the provider serves
    /// beside chat (embeddings), over the same client.
    #[cfg(feature = "openai")]
    pub(crate) fn build_at(
        self,
        segments: &[&str],
    ) -> Result<(HttpModel<P>, reqwest::Url), ModelError> {
        let base = BaseUrl::parse(self.base_url.trim(), P::is_endpoint, P::ENDPOINT_HINT)?;
        let endpoint = base.endpoint(segments.iter().copied())?;
        Ok((self.build()?, endpoint))
    }

    /// Whether the base URL set is one that takes no request without a key.
    fn key_needed(&self) -> bool {
        reqwest::Url::parse(self.base_url.trim()).is_ok_and(|url| is_vendor_api(&url, P::BASE_URL))
    }
}

impl<P: Provider> HttpModel<P> {
    /// A builder, at the provider's own API with the default timeouts and retries;
    /// [`with_model`](HttpModelBuilder::with_model) is required, and the provider's own API
    /// needs [`with_api_key`](HttpModelBuilder::with_api_key).
    pub fn builder() -> HttpModelBuilder<P> {
        HttpModelBuilder::new()
    }

    /// A model configured from the provider's environment variables, as
    /// [`HttpModelBuilder::from_env`] reads them.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingEnv`] naming the variable that is missing, or another
    /// [`ModelError`] when a value is not usable.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// // OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen2.5
    /// let model = tool_sdk::model::openai::OpenAiCompatibleModel::from_env()?;
    /// println!("using {} at {}", model.model(), model.base_url());
    /// # Ok::<(), tool_sdk::model::ModelError>(())
    /// ```
    pub fn from_env() -> Result<Self, ModelError> {
        HttpModelBuilder::from_env()?.build()
    }
}

impl<P: Provider> fmt::Debug for HttpModelBuilder<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header_names: Vec<_> = self.headers.iter().map(|(name, _)| name).collect();
        f.debug_struct("HttpModelBuilder")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("retry", &self.retry)
            .field("headers", &header_names)
            .field("provider", &self.provider)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::env::VarError;

    use super::*;
    use crate::model::http::Env;

    fn lookup<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Result<String, VarError> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
                .ok_or(VarError::NotPresent)
        }
    }

    /// What every provider's environment must do: the three variables trimmed, the model
    /// required, the key required for the provider's own API only, nothing secret shown.
    fn environment_is_read_alike<P: Provider>(local: &str) {
        let Env {
            base_url,
            api_key,
            model,
            ..
        } = P::ENV;
        let from = |vars: &[(&str, &str)]| HttpModelBuilder::<P>::from_lookup(lookup(vars));

        let built = from(&[(api_key, " secret-key "), (model, " m-1 ")])
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(built.base_url(), P::BASE_URL);
        assert_eq!(built.model(), "m-1");
        assert!(built.has_api_key);
        assert!(!format!("{built:?}").contains("secret"), "{built:?}");

        let local_model = from(&[(base_url, local), (model, "m")]).unwrap().build();
        let local_model = local_model.unwrap();
        assert_eq!(local_model.base_url(), local.trim_end_matches('/'));
        assert!(!local_model.has_api_key, "a local server needs no key");

        let error = from(&[(model, "m")]).unwrap_err();
        assert!(
            matches!(error, ModelError::MissingEnv { name, .. } if name == api_key),
            "the provider's own API needs a key: {error}"
        );
        assert!(error
            .to_string()
            .starts_with(&format!("the environment variable {api_key} is not set")));
        let error = from(&[(api_key, "k"), (model, " ")]).unwrap_err();
        assert!(matches!(error, ModelError::MissingEnv { name, .. } if name == model));

        let not_unicode = |_: &str| Err(VarError::NotUnicode(std::ffi::OsString::new()));
        assert_eq!(
            HttpModelBuilder::<P>::from_lookup(not_unicode).unwrap_err(),
            ModelError::InvalidEnv { name: base_url }
        );
    }

    /// What every provider's builder refuses, with the reason.
    fn unusable_settings_are_refused<P: Provider>(endpoint: &str, key_header: &str) {
        let base = HttpModelBuilder::<P>::new()
            .with_api_key("k")
            .with_model("m");
        let build = |builder: HttpModelBuilder<P>| builder.build().unwrap_err();
        assert_eq!(
            build(HttpModelBuilder::<P>::new().with_api_key("k")),
            ModelError::MissingModel
        );
        assert_eq!(
            build(base.clone().with_model(" ")),
            ModelError::MissingModel
        );
        assert_eq!(
            build(HttpModelBuilder::<P>::new().with_model("m")),
            ModelError::MissingApiKey {
                variable: P::ENV.api_key
            }
        );
        for url in ["localhost:11434/v1", "ftp://h/v1", "not a url", endpoint] {
            assert!(
                matches!(
                    build(base.clone().with_base_url(url)),
                    ModelError::InvalidBaseUrl { .. }
                ),
                "{url}"
            );
        }
        assert!(matches!(
            build(base.clone().with_header("bad header", "v")),
            ModelError::InvalidHeader { .. }
        ));
        let error = build(base.with_api_key("k\nsecret"));
        assert!(
            matches!(&error, ModelError::InvalidHeader { name, .. } if name == key_header),
            "{error}"
        );
        assert!(!error.to_string().contains("secret"), "{error}");
    }

    #[cfg(feature = "openai")]
    #[test]
    fn openai_settings_are_read_and_checked() {
        use crate::model::openai::OpenAiCompatible;
        environment_is_read_alike::<OpenAiCompatible>("http://localhost:11434/v1/");
        unusable_settings_are_refused::<OpenAiCompatible>(
            "http://h/v1/chat/completions",
            "authorization",
        );
        let endpoint = |url: &str| {
            HttpModelBuilder::<OpenAiCompatible>::new()
                .with_base_url(url)
                .with_model("m")
                .build()
                .map(|model| model.endpoints.whole.to_string())
        };
        assert_eq!(
            endpoint("http://localhost:8080").unwrap(),
            "http://localhost:8080/chat/completions"
        );
        assert_eq!(
            endpoint("https://gateway.example/openai/v1?api-version=2024-10-21").unwrap(),
            "https://gateway.example/openai/v1/chat/completions?api-version=2024-10-21"
        );
    }

    #[cfg(feature = "anthropic")]
    #[test]
    fn anthropic_settings_are_read_and_checked() {
        use crate::model::anthropic::Anthropic;
        environment_is_read_alike::<Anthropic>("http://127.0.0.1:9/");
        unusable_settings_are_refused::<Anthropic>(
            "https://api.anthropic.com/v1/messages",
            "x-api-key",
        );
        let model = HttpModelBuilder::<Anthropic>::new()
            .with_base_url("http://127.0.0.1:9/")
            .with_model("m")
            .build()
            .unwrap();
        assert_eq!(
            model.endpoints.whole.as_str(),
            "http://127.0.0.1:9/v1/messages"
        );
    }

    #[cfg(feature = "gemini")]
    #[test]
    fn gemini_settings_are_read_and_checked() {
        use crate::model::gemini::Gemini;
        environment_is_read_alike::<Gemini>("http://127.0.0.1:8765/v1beta/");
        unusable_settings_are_refused::<Gemini>(
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
            "x-goog-api-key",
        );
        for bad in [
            "https://generativelanguage.googleapis.com/v1beta/models/",
            "https://generativelanguage.googleapis.com/v1beta/models",
        ] {
            assert!(matches!(
                HttpModelBuilder::<Gemini>::new()
                    .with_base_url(bad)
                    .with_model("m")
                    .build(),
                Err(ModelError::InvalidBaseUrl { .. })
            ));
        }
    }
}
