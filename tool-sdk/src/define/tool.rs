//! The `Tool` trait every tool implements, and what a call yields.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::Value;

use crate::define::{parts_text, Part, ToolContext, ToolDefinition, ToolError};

/// A tool: a definition for the model and a handler for its calls.
///
/// `#[tool]`, `#[tools]` and [`DynamicTool`](crate::register::DynamicTool) implement it for you. The trait
/// is object safe; a [`ToolRegistry`](crate::register::ToolRegistry) holds tools as `Arc<dyn Tool>`.
///
/// # Examples
///
/// A hand-written tool:
///
/// ```
/// use tool_sdk::{define::{ToolDefinition, ToolFuture}, Tool, ToolContext, ToolOutput};
///
/// struct Ping(ToolDefinition);
///
/// impl Tool for Ping {
///     fn definition(&self) -> &ToolDefinition {
///         &self.0
///     }
///
///     fn call<'a>(&'a self, _arguments: &'a str, _context: ToolContext<'a>) -> ToolFuture<'a> {
///         ToolFuture::ready(Ok(ToolOutput::text("pong")))
///     }
/// }
///
/// let schema = serde_json::json!({ "type": "object", "properties": {} });
/// let ping = Ping(ToolDefinition::new("ping", "Answers pong.", schema));
/// assert_eq!(ping.definition().name, "ping");
/// ```
pub trait Tool: Send + Sync {
    /// The tool's definition, built once and borrowed on every call.
    fn definition(&self) -> &ToolDefinition;

    /// Runs the tool on a JSON arguments text.
    ///
    /// A tool that finishes without waiting returns [`ToolFuture::ready`], which costs no
    /// allocation; an `async` tool returns [`ToolFuture::boxed`].
    fn call<'a>(&'a self, arguments: &'a str, context: ToolContext<'a>) -> ToolFuture<'a>;

    /// Whether this call needs a person's decision before it runs, by the tool's
    /// [`Confirm`](crate::define::Confirm) option. A tool declared with a predicate
    /// (`#[tool(confirm = predicate)]`) evaluates it on the decoded arguments; arguments that do
    /// not decode need no decision, since the call fails before running.
    fn needs_confirmation(&self, arguments: &str) -> bool {
        let _ = arguments;
        self.definition().options.confirm == crate::define::Confirm::Always
    }

    /// Decodes and checks `arguments` as a call would, without running anything: `Err` is the
    /// error a call with them fails with before it starts. No person is asked about a call
    /// whose arguments fail here: asked, they would allow a call that cannot run.
    ///
    /// `#[tool]`, `#[tools]`, `define_tool!` and [`DynamicTool`](crate::register::DynamicTool)
    /// decode into the arguments struct, or check against the schema, exactly as their call
    /// does. A hand-written tool may check here what its call checks first; by default nothing
    /// is checked ahead, and the call finds out.
    fn check_arguments(&self, arguments: &str) -> Result<(), ToolError> {
        let _ = arguments;
        Ok(())
    }

    /// Rolls back a call that succeeded with `output`, when the tool declares a compensating
    /// action (`#[tool(compensate = undo)]`); `None` otherwise.
    fn compensate<'a>(
        &'a self,
        arguments: &'a str,
        output: &'a ToolOutput,
        context: ToolContext<'a>,
    ) -> Option<ToolFuture<'a>> {
        let _ = (arguments, output, context);
        None
    }
}

/// A shared or boxed tool is a tool: every method forwards to it.
macro_rules! forward_tool {
    ($($pointer:ident),*) => {$(
        impl<T: Tool + ?Sized> Tool for $pointer<T> {
            fn definition(&self) -> &ToolDefinition {
                (**self).definition()
            }

            fn call<'a>(&'a self, arguments: &'a str, context: ToolContext<'a>) -> ToolFuture<'a> {
                (**self).call(arguments, context)
            }

            fn needs_confirmation(&self, arguments: &str) -> bool {
                (**self).needs_confirmation(arguments)
            }

            fn check_arguments(&self, arguments: &str) -> Result<(), ToolError> {
                (**self).check_arguments(arguments)
            }

            fn compensate<'a>(
                &'a self,
                arguments: &'a str,
                output: &'a ToolOutput,
                context: ToolContext<'a>,
            ) -> Option<ToolFuture<'a>> {
                (**self).compensate(arguments, output, context)
            }
        }
    )*};
}

forward_tool!(Arc, Box);

/// The outcome of one tool call.
pub type ToolResult = Result<ToolOutput, ToolError>;

/// What a tool returned: text, a JSON value, or [`Part`]s (text, JSON, images, files) in
/// order.
///
/// [`content`](Self::content) is always the text a model that reads text only is given (for
/// parts: each text as it is, each image or file as its [`placeholder`](Part::placeholder));
/// [`parts`](Self::parts) are what a model whose API takes media receives.
///
/// # Examples
///
/// ```
/// use tool_sdk::define::{Part, ToolOutput};
///
/// let png = [0x89, b'P', b'N', b'G'];
/// let output = ToolOutput::text("Sales by month:").with_part(Part::image("image/png", png));
/// assert_eq!(output.content(), "Sales by month:\n[image (image/png)]");
/// assert_eq!(output.parts().len(), 2);
///
/// // Text alone is no parts at all: the common case costs nothing more.
/// assert!(ToolOutput::text("3 rooms free").parts().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    content: String,
    is_json: bool,
    /// What few outputs have, boxed so that the others stay small and drop in one test:
    /// `None` when the output is `content` alone.
    more: Option<Box<More>>,
}

/// The parts and the given structured form of an output that has either.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct More {
    /// Empty when the output is `content` alone; else every part, in order.
    parts: Vec<Part>,
    /// A structured form given beside the content (an MCP server's `structuredContent`).
    structured: Option<Value>,
}

impl ToolOutput {
    /// Plain text, passed to the model as it is.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_json: false,
            more: None,
        }
    }

    /// A JSON text (the serialization of a structured result).
    #[inline]
    pub fn json(content: String) -> Self {
        Self {
            content,
            is_json: true,
            more: None,
        }
    }

    /// An output of `parts`, in order. A single text or JSON part is that text or JSON alone.
    pub fn from_parts(parts: impl IntoIterator<Item = Part>) -> Self {
        let mut parts: Vec<Part> = parts.into_iter().collect();
        match parts.as_mut_slice() {
            [Part::Text { text }] => Self::text(std::mem::take(text)),
            [Part::Json { json }] => Self::json(std::mem::take(json)),
            [] => Self::text(String::new()),
            _ => Self {
                content: parts_text(&parts),
                is_json: false,
                more: Some(Box::new(More {
                    parts,
                    structured: None,
                })),
            },
        }
    }

    /// The output with `part` after what it holds (its text, or JSON, becomes the first part;
    /// empty text is left out).
    pub fn with_part(self, part: Part) -> Self {
        let mut parts = self.into_parts();
        parts.push(part);
        Self::from_parts(parts)
    }

    /// The text the model sees (see the type's documentation for outputs with parts).
    pub fn content(&self) -> &str {
        &self.content
    }

    /// Whether the content is a serialized JSON value rather than free text.
    pub fn is_json(&self) -> bool {
        self.is_json
    }

    /// The parts, when the output has any beyond its text: empty for text or JSON alone.
    pub fn parts(&self) -> &[Part] {
        match &self.more {
            Some(more) => &more.parts,
            None => &[],
        }
    }

    /// The output with `value` as its structured form, kept beside its content (which stays
    /// what the model reads): how a consumed MCP tool's `structuredContent` arrives.
    pub fn with_structured(mut self, value: Value) -> Self {
        self.more.get_or_insert_with(Box::default).structured = Some(value);
        self
    }

    /// Whether the structured form was given with [`with_structured`](Self::with_structured)
    /// (by an MCP server, say) rather than being the output's own JSON.
    #[cfg(feature = "dynamic")]
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub(crate) fn structured_is_given(&self) -> bool {
        self.given_structured().is_some()
    }

    fn given_structured(&self) -> Option<&Value> {
        self.more.as_ref()?.structured.as_ref()
    }

    /// The structured form of the output: the one given with
    /// [`with_structured`](Self::with_structured), else the JSON value of JSON output (a
    /// [`Json`](crate::define::Json) or any `Serialize` result) or of its one JSON part;
    /// `None` for text. What is checked against the tool's
    /// [output schema](crate::define::ToolDefinition::output_schema), and what hooks and
    /// events are offered. Each call parses the JSON (or clones the given value) anew.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_sdk::define::{IntoToolOutput, Json};
    /// use tool_sdk::ToolOutput;
    ///
    /// let output = Json(json!({"celsius": 21})).into_tool_output("t").unwrap();
    /// assert_eq!(output.structured(), Some(json!({"celsius": 21})));
    /// assert_eq!(ToolOutput::text("21 degrees").structured(), None);
    /// ```
    pub fn structured(&self) -> Option<Value> {
        if let Some(value) = self.given_structured() {
            return Some(value.clone());
        }
        let json = if self.is_json {
            Some(self.content.as_str())
        } else {
            let mut json = self.parts().iter().filter_map(|part| match part {
                Part::Json { json } => Some(json.as_str()),
                _ => None,
            });
            match (json.next(), json.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        };
        json.and_then(|json| serde_json::from_str(json).ok())
    }

    /// The text the model sees, owned.
    #[inline]
    pub fn into_content(self) -> String {
        // Matched rather than dropped with the output: an output of content alone, the common
        // case, then drops nothing more, and the drop of the rare rest is a call it never makes.
        if let Some(more) = self.more {
            drop_rare(more);
        }
        self.content
    }

    /// Every part of the output: its parts, or its text (or JSON) as the one part (none when
    /// it is empty text).
    pub fn into_parts(self) -> Vec<Part> {
        let is_json = self.is_json;
        let (content, parts) = self.into_content_and_parts();
        if !parts.is_empty() {
            parts
        } else if is_json {
            vec![Part::json(content)]
        } else if content.is_empty() {
            Vec::new()
        } else {
            vec![Part::text(content)]
        }
    }

    /// The text the model sees, and the parts beyond it (empty for text or JSON alone).
    pub fn into_content_and_parts(self) -> (String, Vec<Part>) {
        let parts = self.more.map(|more| more.parts).unwrap_or_default();
        (self.content, parts)
    }
}

/// Drops `value` out of line: what an output rarely has, so that where an output is taken
/// apart the common case holds no inlined drop of it. Generic, so that it is compiled where it
/// is used.
#[cold]
#[inline(never)]
fn drop_rare<T>(value: T) {
    drop(value);
}

impl fmt::Display for ToolOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.content)
    }
}

/// The future a [`Tool::call`] returns: already finished, or a boxed `async` computation.
///
/// Keeping the finished case apart means synchronous tools are dispatched with no allocation.
#[must_use = "a tool call does nothing until it is awaited"]
pub struct ToolFuture<'a> {
    state: FutureState<'a>,
}

enum FutureState<'a> {
    Ready(Option<ToolResult>),
    Pending(BoxedToolFuture<'a>),
}

impl<'a> ToolFuture<'a> {
    /// A call that has finished already.
    #[inline]
    pub fn ready(result: ToolResult) -> Self {
        Self {
            state: FutureState::Ready(Some(result)),
        }
    }

    /// A call that finishes when `future` does.
    pub fn boxed(future: impl Future<Output = ToolResult> + Send + 'a) -> Self {
        Self {
            state: FutureState::Pending(Box::pin(future)),
        }
    }

    /// The result, when the call finished without waiting and was not polled yet.
    #[inline]
    pub fn into_ready(self) -> Result<ToolResult, Self> {
        match self.state {
            FutureState::Ready(Some(result)) => Ok(result),
            state => Err(Self { state }),
        }
    }

    /// The result, when the call finished without waiting; else the computation itself, so
    /// that whoever keeps it running holds the box alone, not this whole enum.
    #[inline]
    pub(crate) fn into_result_or_boxed(self) -> Result<ToolResult, BoxedToolFuture<'a>> {
        match self.state {
            FutureState::Ready(Some(result)) => Ok(result),
            FutureState::Ready(None) => Ok(Err(polled_after_completion())),
            FutureState::Pending(future) => Err(future),
        }
    }
}

/// A tool call's computation, boxed: what an `async` tool's [`ToolFuture`] holds.
pub(crate) type BoxedToolFuture<'a> = Pin<Box<dyn Future<Output = ToolResult> + Send + 'a>>;

#[cold]
fn polled_after_completion() -> ToolError {
    ToolError::failed("", "tool future polled after completion")
}

impl Future for ToolFuture<'_> {
    type Output = ToolResult;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        match &mut self.state {
            // Polling a finished future again is a caller bug; answer with a classified error
            // instead of panicking.
            FutureState::Ready(result) => Poll::Ready(
                result
                    .take()
                    .unwrap_or_else(|| Err(polled_after_completion())),
            ),
            FutureState::Pending(future) => future.as_mut().poll(cx),
        }
    }
}

impl fmt::Debug for ToolFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            FutureState::Ready(Some(_)) => "ready",
            FutureState::Ready(None) => "taken",
            FutureState::Pending(_) => "pending",
        };
        f.debug_struct("ToolFuture").field("state", &state).finish()
    }
}
