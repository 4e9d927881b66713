//! Model: the [`ChatModel`] seam the loop talks to, the messages of a conversation, the keys of
//! a reply's calls, a [`ScriptedModel`] for tests and offline runs,
//! the model the environment names ([`from_env`]), and the HTTP models: OpenAI-compatible
//! (feature `openai`), Anthropic (feature `anthropic`) and Gemini (feature `gemini`), over one
//! shared HTTP core.
#![doc = include_str!("guide.md")]

#[cfg(feature = "anthropic")]
pub mod anthropic;
mod chat;
mod conversation;
mod env;
/// Built for the fuzz targets alone.
#[cfg(all(
    any(fuzzing, test),
    any(feature = "openai", feature = "anthropic", feature = "gemini")
))]
#[doc(hidden)]
pub mod fuzzing;
pub mod gemini;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub mod http;
mod keys;
mod message;
pub mod openai;
mod script;
mod scripted;
mod usage;

pub use chat::{
    ChatDelta, ChatModel, ChatOptions, ChatRequest, ChatResponse, ChatStream, ModelError,
    ModelFuture, OfferedTool,
};
pub use conversation::check_conversation;
pub use env::from_env;
pub use keys::{tool_call_keys, POSITION_KEY_PREFIX};
#[cfg(all(
    test,
    any(feature = "openai", feature = "anthropic", feature = "gemini")
))]
pub(crate) use message::chart_result;
pub use message::{AssistantMessage, Message, ToolCall, ToolResultMessage, ToolResultStatus};
pub use scripted::{ScriptedModel, SeenRequest};
pub use usage::Usage;
