//! The model seam: what the loop sends a chat model and what comes back.

use std::future::Future;
use std::pin::Pin;

use futures_util::stream::Stream;
use serde_json::Value;

use crate::model::{AssistantMessage, Message, ToolCall, Usage};

use crate::define::ToolDefinition;
use crate::describe::Dialect;

/// A boxed future of a model call.
pub type ModelFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ChatResponse, ModelError>> + Send + 'a>>;

/// One request to a chat model: the conversation so far, the tools offered, and options.
/// Borrowed: building one clones no message and no schema.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// The conversation, oldest first.
    pub messages: &'a [Message],
    /// The tools the model may call, each with its parameters in the model's
    /// [dialect](ChatModel::dialect).
    pub tools: &'a [OfferedTool<'a>],
    /// Sampling and other options.
    pub options: &'a ChatOptions,
}

/// A tool as a request offers it: its definition, and its parameters schema in the dialect of
/// the model the request goes to ([`ChatModel::dialect`]), which is what the model must send.
///
/// ```
/// use serde_json::json;
/// use tool_sdk::define::ToolDefinition;
/// use tool_sdk::model::OfferedTool;
///
/// let definition = ToolDefinition::new("ping", "Pings.", json!({"type": "object"}));
/// let offered = OfferedTool::canonical(&definition);
/// assert_eq!(offered.name(), "ping");
/// assert_eq!(offered.parameters, &definition.parameters);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct OfferedTool<'a> {
    /// The tool's definition: name, description, options, canonical schema.
    pub definition: &'a ToolDefinition,
    /// Its parameters in the model's dialect.
    pub parameters: &'a Value,
}

impl<'a> OfferedTool<'a> {
    /// `definition` with its canonical schema, for a dialect that takes it as it is.
    pub fn canonical(definition: &'a ToolDefinition) -> Self {
        Self {
            definition,
            parameters: &definition.parameters,
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &'a str {
        &self.definition.name
    }
}

/// Options of a request. Fields a model does not support are ignored by it.
///
/// ```
/// use tool_sdk::model::ChatOptions;
///
/// let options = ChatOptions::new().with_temperature(0.2).with_max_tokens(512);
/// assert_eq!(options.max_tokens, Some(512));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ChatOptions {
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Most tokens to generate.
    pub max_tokens: Option<u32>,
}

impl ChatOptions {
    /// No options: each model's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`temperature`](Self::temperature).
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets [`max_tokens`](Self::max_tokens).
    pub fn with_max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = Some(tokens);
        self
    }
}

/// What the model answered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChatResponse {
    /// The reply: text, tool calls, or both.
    pub message: AssistantMessage,
    /// The tokens the model reports for the request; `None` when it reports none.
    pub usage: Option<Usage>,
}

impl ChatResponse {
    /// A response with this reply.
    pub fn new(message: AssistantMessage) -> Self {
        Self {
            message,
            usage: None,
        }
    }

    /// Sets [`usage`](Self::usage).
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }
}

/// Why a model could not be set up or called. Match it by variant;
/// [`is_config`](Self::is_config) says whether it is the setting up, of whichever variant, or
/// the call.
///
/// ```
/// use tool_sdk::model::ModelError;
///
/// fn advice(error: &ModelError) -> &'static str {
///     match error {
///         ModelError::Refused { .. } => "change the request",
///         ModelError::Unavailable(_) => "try again later",
///         error if error.is_config() => "mend the setting",
///         _ => "report it",
///     }
/// }
/// assert_eq!(advice(&ModelError::MissingModel), "mend the setting");
/// assert_eq!(advice(&ModelError::Exhausted), "report it");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The provider refused the request (a 4xx other than rate limiting), with its message.
    #[error("the model refused the request ({status}): {message}")]
    Refused {
        /// HTTP status, or 0 when there is none.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// The provider could not be reached or failed after the retries.
    #[error("the model is unavailable: {0}")]
    Unavailable(String),
    /// The provider's answer could not be read.
    #[error("the model's answer is malformed: {0}")]
    Malformed(String),
    /// A scripted model ran out of replies.
    #[error("the scripted model has no reply left")]
    Exhausted,
    /// A conversation that no provider takes (see
    /// [`check_conversation`](crate::model::check_conversation)): a call without its result,
    /// or a result that answers no call.
    #[error("message {index} of the conversation: {reason}")]
    InvalidConversation {
        /// The message where it goes wrong, counted from 0.
        index: usize,
        /// What is wrong there.
        reason: String,
    },
    // Setting a model up.
    /// A required environment variable is not set, or blank.
    #[error("the environment variable {name} is not set: {hint}")]
    MissingEnv {
        /// The variable.
        name: &'static str,
        /// What to set it to.
        hint: &'static str,
    },
    /// The environment names a model of a provider this build was compiled without:
    /// `OPENAI_BASE_URL` is set, say, and tool-sdk's feature `openai` is off.
    #[error("the environment variable {variable} names a model this build does not have: turn on tool-sdk's feature `{feature}`")]
    FeatureOff {
        /// The variable that names the model.
        variable: &'static str,
        /// The feature of tool-sdk that has the provider's model.
        feature: &'static str,
    },
    /// An environment variable is not valid Unicode.
    #[error("the environment variable {name} is not valid Unicode")]
    InvalidEnv {
        /// The variable.
        name: &'static str,
    },
    /// No model was given.
    #[error("no model: set one with `with_model`, the model's name as the server knows it")]
    MissingModel,
    /// No API key was given for a provider's own API, which takes no request without one.
    #[error("no API key: set one with `with_api_key` (a model read from the environment takes it from {variable})")]
    MissingApiKey {
        /// The variable a model read from the environment takes its key from.
        variable: &'static str,
    },
    /// The base URL is not an `http` or `https` URL a request can be sent to.
    #[error("the base URL `{url}` is not usable: {reason}")]
    InvalidBaseUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A header (the API key's included) cannot be sent.
    #[error("the header `{name}` is not usable: {reason}")]
    InvalidHeader {
        /// The header's name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The HTTP client could not be set up (its TLS configuration, for one).
    #[error("the HTTP client could not be built: {0}")]
    Client(String),
    /// A [`ScriptedModel`](crate::model::ScriptedModel)'s script cannot be read.
    #[error("line {line} of the script: {reason}")]
    InvalidScript {
        /// The line, counted from 1 (0 for the script as a whole).
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}

impl ModelError {
    /// Whether the model could not be set up (a setting, the environment, the script): the
    /// variants from [`MissingEnv`](Self::MissingEnv) to [`InvalidScript`](Self::InvalidScript).
    /// Nothing was sent; retrying will not help until the setting is mended.
    pub fn is_config(&self) -> bool {
        match self {
            Self::Refused { .. }
            | Self::Unavailable(_)
            | Self::Malformed(_)
            | Self::Exhausted
            | Self::InvalidConversation { .. } => false,
            Self::MissingEnv { .. }
            | Self::InvalidEnv { .. }
            | Self::FeatureOff { .. }
            | Self::MissingApiKey { .. }
            | Self::MissingModel
            | Self::InvalidBaseUrl { .. }
            | Self::InvalidHeader { .. }
            | Self::Client(_)
            | Self::InvalidScript { .. } => true,
        }
    }
}

/// A piece of a streamed reply.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChatDelta {
    /// More of the reply's text.
    Text(String),
    /// A tool call, complete (its arguments whole): the loop may start it at once.
    ToolCall(ToolCall),
    /// Tokens the model reports for the request (usually once, at the end); several are
    /// summed.
    Usage(Usage),
}

/// A streamed reply: its pieces, in order.
pub type ChatStream<'a> = Pin<Box<dyn Stream<Item = Result<ChatDelta, ModelError>> + Send + 'a>>;

/// A chat model that can call tools.
///
/// Shared and borrowed models are models too (`Arc<M>`, `Box<M>`, `&M`): give the loop an
/// `Arc` and keep a clone to look at the model afterwards.
///
/// ```
/// use std::sync::Arc;
/// use tool_sdk::run::ToolLoop;
/// use tool_sdk::{AssistantMessage, Message, ScriptedModel, ToolRegistry};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let model = Arc::new(ScriptedModel::new([AssistantMessage::text("Hello.")]));
/// let agent = ToolLoop::new(Arc::clone(&model), ToolRegistry::new());
/// agent.run(&mut vec![Message::user("Hi")]).await;
/// assert_eq!(model.requests().len(), 1);
///
/// // A borrowed model is one too.
/// fn takes(_: impl tool_sdk::ChatModel) {}
/// takes(&*model);
/// # }
/// ```
pub trait ChatModel: Send + Sync {
    /// The schema dialect of the model's API: the loop sends each tool's parameters lowered to
    /// it, and stops before the first request when a tool cannot be. The default,
    /// [`Dialect::OpenAi`], is the canonical schema with an object at its root.
    fn dialect(&self) -> Dialect {
        Dialect::OpenAi
    }

    /// What the model is, for a person to read (logs, a program's banner): the provider, the
    /// model's name, where it is. The default says only that it is a chat model.
    fn description(&self) -> String {
        "a chat model".to_owned()
    }

    /// Sends one request.
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a>;

    /// Sends one request and streams the reply, when the model can; `None` (the default) when
    /// it cannot, and the loop uses [`chat`](Self::chat).
    fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> Option<ChatStream<'a>> {
        let _ = request;
        None
    }
}

/// A shared or borrowed model is a model: every method forwards to it.
macro_rules! forward_chat_model {
    ($($pointer:ty),*) => {$(
        impl<M: ChatModel + ?Sized> ChatModel for $pointer {
            fn dialect(&self) -> Dialect {
                (**self).dialect()
            }

            fn description(&self) -> String {
                (**self).description()
            }

            fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
                (**self).chat(request)
            }

            fn chat_stream<'a>(&'a self, request: ChatRequest<'a>) -> Option<ChatStream<'a>> {
                (**self).chat_stream(request)
            }
        }
    )*};
}

forward_chat_model!(std::sync::Arc<M>, Box<M>, &M);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_setting_up_is_config() {
        let text = || "x".to_owned();
        let setting_up = [
            ModelError::MissingEnv {
                name: "OPENAI_API_KEY",
                hint: "a key",
            },
            ModelError::FeatureOff {
                variable: "OPENAI_BASE_URL",
                feature: "openai",
            },
            ModelError::InvalidEnv {
                name: "OPENAI_MODEL",
            },
            ModelError::MissingModel,
            ModelError::MissingApiKey {
                variable: "OPENAI_API_KEY",
            },
            ModelError::InvalidBaseUrl {
                url: text(),
                reason: text(),
            },
            ModelError::InvalidHeader {
                name: text(),
                reason: text(),
            },
            ModelError::Client(text()),
            ModelError::InvalidScript {
                line: 1,
                reason: text(),
            },
        ];
        for error in &setting_up {
            assert!(error.is_config(), "{error:?}");
        }
        let calling = [
            ModelError::Refused {
                status: 400,
                message: text(),
            },
            ModelError::Unavailable(text()),
            ModelError::Malformed(text()),
            ModelError::Exhausted,
            ModelError::InvalidConversation {
                index: 0,
                reason: text(),
            },
        ];
        for error in &calling {
            assert!(!error.is_config(), "{error:?}");
        }
    }
}
