//! Configuring a [`GeminiModel`]: the builder, the environment, and what can be wrong with
//! either.

use std::env::VarError;
use std::fmt;
use std::time::Duration;

use reqwest::header::HeaderName;
use reqwest::Url;

use crate::describe::Dialect;
use crate::model::gemini::GeminiModel;
use crate::model::http::{client, env_var, headers, BaseUrl, HttpClient, RetryPolicy};
use crate::model::ModelError;

/// The base URL of Google's Gemini API.
pub const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";
/// The variable [`GeminiModel::from_env`] reads the API key from.
pub const ENV_API_KEY: &str = "GEMINI_API_KEY";
/// The variable [`GeminiModel::from_env`] reads the model's name from.
pub const ENV_MODEL: &str = "GEMINI_MODEL";
/// The variable [`GeminiModel::from_env`] reads the base URL from, when it is set.
pub const ENV_BASE_URL: &str = "GEMINI_BASE_URL";

/// How long one attempt may take by default: a long answer of a thinking model can take
/// minutes.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// How long connecting may take by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How many times a failed request is tried again by default.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// The longest wait a server's `Retry-After` (or Gemini's `RetryInfo`) gets by default.
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
const DEFAULT_INITIAL_BACKOFF: Duration = Duration::from_millis(500);
const DEFAULT_MAX_BACKOFF: Duration = Duration::from_secs(8);

/// The header the API key goes in.
const API_KEY_HEADER: &str = "x-goog-api-key";

/// Builds a [`GeminiModel`].
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use tool_sdk::model::gemini::GeminiModel;
///
/// let model = GeminiModel::builder()
///     .with_api_key("AIza...")
///     .with_model("gemini-2.5-flash")
///     .with_timeout(Duration::from_secs(120))
///     .with_max_retries(4)
///     .build()?;
/// assert_eq!(model.base_url(), "https://generativelanguage.googleapis.com/v1beta");
/// # Ok::<(), tool_sdk::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct GeminiBuilder {
    base_url: String,
    api_key: Option<String>,
    model: Option<String>,
    timeout: Duration,
    connect_timeout: Duration,
    retry: RetryPolicy,
    headers: Vec<(String, String)>,
    json_schema: Option<bool>,
}

impl Default for GeminiBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl GeminiBuilder {
    /// A builder for Google's API ([`GEMINI_BASE_URL`]) with the default timeouts and retries,
    /// and no key or model.
    pub fn new() -> Self {
        Self {
            base_url: GEMINI_BASE_URL.to_owned(),
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
            json_schema: None,
        }
    }

    /// A builder set from the environment, as [`GeminiModel::from_env`] reads it, to change
    /// other settings before [`build`](Self::build).
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingEnv`] when `GEMINI_API_KEY` or `GEMINI_MODEL` is not set (or
    /// blank); [`ModelError::InvalidEnv`] when one of the three is not Unicode.
    pub fn from_env() -> Result<Self, ModelError> {
        Self::from_lookup(|name| std::env::var(name))
    }

    fn from_lookup(lookup: impl Fn(&str) -> Result<String, VarError>) -> Result<Self, ModelError> {
        let api_key = env_var(&lookup, ENV_API_KEY)?.ok_or(ModelError::MissingEnv {
            name: ENV_API_KEY,
            hint: "set it to a Gemini API key, from https://aistudio.google.com/apikey",
        })?;
        let model = env_var(&lookup, ENV_MODEL)?.ok_or(ModelError::MissingEnv {
            name: ENV_MODEL,
            hint: "set it to the model's name, such as gemini-2.5-flash",
        })?;
        let mut builder = Self::new().with_api_key(api_key).with_model(model);
        if let Some(base_url) = env_var(&lookup, ENV_BASE_URL)? {
            builder = builder.with_base_url(base_url);
        }
        Ok(builder)
    }

    /// The base URL the API's paths are under (default [`GEMINI_BASE_URL`]); requests go to
    /// `{base URL}/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`.
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// The API key, sent as `x-goog-api-key: KEY`. Google's API needs one; a gateway that
    /// adds its own may not.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The model's name (`gemini-2.5-flash`; `models/gemini-2.5-flash` is the same), or the
    /// path of a tuned model (`tunedModels/NAME`).
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

    /// The longest wait the server's `Retry-After`, or the `RetryInfo` of its error body, gets
    /// (default [`DEFAULT_MAX_RETRY_AFTER`]).
    pub fn with_max_retry_after(mut self, max: Duration) -> Self {
        self.retry.max_retry_after = max;
        self
    }

    /// A header sent with every request (a gateway's routing header, ...).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Whether tools are declared with `parametersJsonSchema` (JSON Schema,
    /// [`Dialect::GeminiJsonSchema`]) or with `parameters` (the OpenAPI subset,
    /// [`Dialect::Gemini`]). By default JSON Schema, which the `v1beta` API (Google's default
    /// base URL) takes; the OpenAPI subset when the base URL is the `v1` API, which has no
    /// `parametersJsonSchema`, or for a server that only knows `parameters`.
    pub fn with_json_schema(mut self, json_schema: bool) -> Self {
        self.json_schema = Some(json_schema);
        self
    }

    /// The model.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingModel`] when none was set; [`ModelError::InvalidBaseUrl`] when
    /// the URL is not `http`/`https` or already names a model or method (`.../models/...`);
    /// [`ModelError::InvalidHeader`] when the key or a header cannot be sent;
    /// [`ModelError::Client`] when the HTTP client cannot be set up.
    pub fn build(self) -> Result<GeminiModel, ModelError> {
        let base = BaseUrl::parse(
            self.base_url.trim(),
            |path| path.ends_with("/models") || path.contains("/models/") || path.contains(':'),
            "give the base URL, without /models/... (such as https://generativelanguage.googleapis.com/v1beta)",
        )?;
        let model = self
            .model
            .map(|model| model.trim().to_owned())
            .filter(|model| !model.is_empty())
            .ok_or(ModelError::MissingModel)?;
        let (generate_url, stream_url) = endpoints(&base, &model)?;
        let json_schema = self.json_schema.unwrap_or(!stable_api(&base.shown));
        let api_key = self.api_key.filter(|key| !key.trim().is_empty());
        let secret = api_key
            .as_ref()
            .map(|key| (HeaderName::from_static(API_KEY_HEADER), key.clone()));
        let http = client(headers(secret, &self.headers)?, self.connect_timeout)?;
        Ok(GeminiModel {
            client: HttpClient {
                http,
                timeout: self.timeout,
                retry: self.retry,
            },
            generate_url,
            stream_url,
            base_url: base.shown,
            model,
            has_api_key: api_key.is_some(),
            dialect: if json_schema {
                Dialect::GeminiJsonSchema
            } else {
                Dialect::Gemini
            },
        })
    }
}

/// Whether `base_url` is Gemini's stable `v1` API, which declares tools with `parameters` only.
fn stable_api(base_url: &str) -> bool {
    base_url.trim_end_matches('/').ends_with("/v1")
}

/// The `generateContent` and `streamGenerateContent?alt=sse` endpoints of `model`: a name
/// goes under `models/`, a path (`tunedModels/NAME`) as it is.
fn endpoints(base: &BaseUrl, model: &str) -> Result<(Url, Url), ModelError> {
    let path = if model.contains('/') {
        model.to_owned()
    } else {
        format!("models/{model}")
    };
    let url = |method: &str| {
        let (parents, name) = path.rsplit_once('/').unwrap_or(("", path.as_str()));
        let last = format!("{name}:{method}");
        base.endpoint(
            parents
                .split('/')
                .filter(|segment| !segment.is_empty())
                .chain([last.as_str()]),
        )
    };
    let generate = url("generateContent")?;
    let mut stream = url("streamGenerateContent")?;
    stream.query_pairs_mut().append_pair("alt", "sse");
    Ok((generate, stream))
}

impl fmt::Debug for GeminiBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeminiBuilder")
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
    fn the_environment_configures_googles_api_or_another_base_url() {
        let model = GeminiBuilder::from_lookup(lookup(&[
            (ENV_API_KEY, " AIza-secret "),
            (ENV_MODEL, " gemini-2.5-flash "),
        ]))
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(model.base_url(), GEMINI_BASE_URL);
        assert_eq!(model.model(), "gemini-2.5-flash");
        assert_eq!(
            model.generate_url.as_str(),
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
        );
        assert_eq!(
            model.stream_url.as_str(),
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert!(model.has_api_key);
        assert!(!format!("{model:?}").contains("secret"), "{model:?}");

        let model = GeminiBuilder::from_lookup(lookup(&[
            (ENV_API_KEY, "k"),
            (ENV_MODEL, "gemini-2.0-flash"),
            (ENV_BASE_URL, "http://127.0.0.1:8765/v1beta/"),
        ]))
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(model.base_url(), "http://127.0.0.1:8765/v1beta");
        assert_eq!(
            model.generate_url.as_str(),
            "http://127.0.0.1:8765/v1beta/models/gemini-2.0-flash:generateContent"
        );
    }

    #[test]
    fn missing_variables_are_named() {
        let error =
            GeminiBuilder::from_lookup(lookup(&[(ENV_MODEL, "gemini-2.5-flash")])).unwrap_err();
        assert!(matches!(
            error,
            ModelError::MissingEnv {
                name: ENV_API_KEY,
                ..
            }
        ));
        assert!(error
            .to_string()
            .starts_with("the environment variable GEMINI_API_KEY is not set"));
        let error = GeminiBuilder::from_lookup(lookup(&[(ENV_API_KEY, "k"), (ENV_MODEL, " ")]))
            .unwrap_err();
        assert!(matches!(
            error,
            ModelError::MissingEnv {
                name: ENV_MODEL,
                ..
            }
        ));
        let not_unicode = |_: &str| Err(VarError::NotUnicode(std::ffi::OsString::new()));
        assert_eq!(
            GeminiBuilder::from_lookup(not_unicode).unwrap_err(),
            ModelError::InvalidEnv { name: ENV_API_KEY }
        );
    }

    #[test]
    fn model_names_and_paths_make_the_endpoints() {
        let endpoint = |model: &str| {
            GeminiModel::builder()
                .with_base_url("https://gateway.example/gemini/v1beta?tenant=t")
                .with_model(model)
                .build()
                .map(|model| (model.generate_url.to_string(), model.stream_url.to_string()))
        };
        assert_eq!(
            endpoint("gemini-2.5-pro").unwrap(),
            (
                "https://gateway.example/gemini/v1beta/models/gemini-2.5-pro:generateContent?tenant=t"
                    .to_owned(),
                "https://gateway.example/gemini/v1beta/models/gemini-2.5-pro:streamGenerateContent?tenant=t&alt=sse"
                    .to_owned()
            )
        );
        assert_eq!(
            endpoint("models/gemini-2.5-pro").unwrap(),
            endpoint("gemini-2.5-pro").unwrap()
        );
        assert_eq!(
            endpoint("tunedModels/my-model").unwrap().0,
            "https://gateway.example/gemini/v1beta/tunedModels/my-model:generateContent?tenant=t"
        );
        assert_eq!(
            endpoint("a model?#").unwrap().0,
            "https://gateway.example/gemini/v1beta/models/a%20model%3F%23:generateContent?tenant=t",
            "a name is one path segment, escaped"
        );
    }

    #[test]
    fn unusable_settings_are_refused_with_the_reason() {
        let build = |url: &str| {
            GeminiModel::builder()
                .with_base_url(url)
                .with_model("m")
                .build()
                .map(|model| model.generate_url.to_string())
        };
        assert_eq!(
            build("http://localhost:8080").unwrap(),
            "http://localhost:8080/models/m:generateContent"
        );
        for bad in [
            "generativelanguage.googleapis.com/v1beta",
            "ftp://h/v1beta",
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
            "https://generativelanguage.googleapis.com/v1beta/models/",
            "not a url",
        ] {
            assert!(
                matches!(build(bad), Err(ModelError::InvalidBaseUrl { .. })),
                "{bad}"
            );
        }
        assert_eq!(
            GeminiModel::builder().build().unwrap_err(),
            ModelError::MissingModel
        );
        let error = GeminiModel::builder()
            .with_model("m")
            .with_api_key("AIza\nsecret")
            .build()
            .unwrap_err();
        assert!(
            matches!(&error, ModelError::InvalidHeader { name, .. } if name == "x-goog-api-key")
        );
        assert!(!error.to_string().contains("secret"), "{error}");
        assert!(matches!(
            GeminiModel::builder()
                .with_model("m")
                .with_header("bad header", "v")
                .build(),
            Err(ModelError::InvalidHeader { .. })
        ));
        let model = GeminiModel::builder().with_model("m").build().unwrap();
        assert!(!model.has_api_key, "a gateway may add the key itself");
    }
}
