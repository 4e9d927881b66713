//! The messages of a conversation: system and user text, the model's replies with their tool
//! calls, and the answer to each call.

use serde::{Deserialize, Serialize};

use crate::define::Part;

/// One tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id the model gave the call; some providers (Gemini) give none.
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments, as the JSON text the model wrote.
    pub arguments: String,
}

impl ToolCall {
    /// A call with an id.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: Some(id.into()),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// A call without an id.
    pub fn without_id(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Self {
            id: None,
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// What the model replied: text, tool calls, or both.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The reply's text, if any.
    pub text: Option<String>,
    /// The tool calls, in the order the model asked for them.
    pub tool_calls: Vec<ToolCall>,
}

impl AssistantMessage {
    /// A reply made of text only: an answer.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            tool_calls: Vec::new(),
        }
    }

    /// A reply that makes one call, without an id (its key is `#0`): a line of a script for a
    /// [`ScriptedModel`](crate::model::ScriptedModel).
    pub fn call(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Self::with_tool_calls(vec![ToolCall::without_id(name, arguments)])
    }

    /// A reply made of tool calls only.
    pub fn with_tool_calls(tool_calls: Vec<ToolCall>) -> Self {
        Self {
            text: None,
            tool_calls,
        }
    }
}

/// How a tool call ended, as the model is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolResultStatus {
    /// The tool ran and succeeded.
    Success,
    /// The call failed (bad arguments, unknown tool, the tool's own error, ...).
    Error,
    /// A person denied the call; it never ran.
    Denied,
    /// The call ran and succeeded, then was rolled back by its compensating action.
    RolledBack,
}

/// The answer to one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResultMessage {
    /// The id of the call it answers (`None` when the call had none).
    pub call_id: Option<String>,
    /// The call's key in its reply (see [`tool_call_keys`](crate::model::tool_call_keys)).
    pub key: String,
    /// The tool's name.
    pub name: String,
    /// What the model reads: the output's text, or for an output of [`Part`]s, their text
    /// with a placeholder for each image or file (what a model that reads text only gets).
    pub content: String,
    /// The output's parts (text, JSON, images, files) in order, when it has any beyond its
    /// text; empty otherwise. A model whose API takes media in tool results sends these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
    /// How the call ended.
    pub status: ToolResultStatus,
}

impl ToolResultMessage {
    /// Whether the model should read this as an error.
    pub fn is_error(&self) -> bool {
        self.status != ToolResultStatus::Success
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions for the model.
    System {
        /// The instructions.
        content: String,
    },
    /// What the user said.
    User {
        /// The user's text.
        content: String,
    },
    /// What the model replied.
    Assistant(AssistantMessage),
    /// The answer to one tool call.
    Tool(ToolResultMessage),
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::System {
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
        }
    }
}

/// A successful result of a call `call_id` of `chart` whose output is a caption, a PNG chart,
/// a PDF report and an SVG (an image type few APIs take), for the tests of each wire format.
#[cfg(all(
    test,
    any(feature = "openai", feature = "anthropic", feature = "gemini")
))]
pub(crate) fn chart_result(call_id: &str) -> ToolResultMessage {
    use crate::define::{Part, ToolOutput};
    let (content, parts) = ToolOutput::from_parts([
        Part::text("Sales by month:"),
        Part::image("image/png", [1, 2, 3]),
        Part::file("application/pdf", "q3.pdf", b"%PDF"),
        Part::image("image/svg+xml", b"<svg/>"),
    ])
    .into_content_and_parts();
    ToolResultMessage {
        call_id: Some(call_id.to_owned()),
        key: call_id.to_owned(),
        name: "chart".to_owned(),
        content,
        parts,
        status: ToolResultStatus::Success,
    }
}
