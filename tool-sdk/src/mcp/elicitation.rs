//! A consumed server asking this application's user for input (`elicitation/create`): the
//! application answers through a function of its own, given to
//! [`McpClientBuilder::with_elicitation`](super::McpClientBuilder::with_elicitation).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::Value;

/// What a server asks the user for: a message and the JSON Schema of the form to fill (an
/// object of plain properties, as MCP's form elicitation allows).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpElicitation {
    /// What the server tells the user.
    pub message: String,
    /// The form: an object schema whose properties are strings, numbers, booleans or
    /// enumerations.
    pub schema: Value,
}

impl McpElicitation {
    /// The form's default values: each property's `default`, by name. A form shown to the
    /// user starts from them; an accepted answer that leaves a property out gets its default
    /// (SEP-1034).
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_sdk::mcp::McpElicitation;
    ///
    /// let asked = McpElicitation::new(
    ///     "Your name?",
    ///     json!({"type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}}),
    /// );
    /// assert_eq!(asked.defaults()["name"], "Ada");
    /// ```
    pub fn defaults(&self) -> serde_json::Map<String, Value> {
        let Some(properties) = self.schema.get("properties").and_then(Value::as_object) else {
            return serde_json::Map::new();
        };
        properties
            .iter()
            .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
            .collect()
    }

    /// A question: `message`, and the form's JSON Schema. What a server sends; built by hand
    /// to test an answering function.
    pub fn new(message: impl Into<String>, schema: Value) -> Self {
        Self {
            message: message.into(),
            schema,
        }
    }
}

/// The user's answer to an [`McpElicitation`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpElicitationAnswer {
    /// The form, filled in (an object following the schema). A property left out is sent
    /// with the schema's default, when it has one.
    Accept(Value),
    /// The user said no.
    Decline,
    /// The user dismissed the question without answering.
    Cancel,
}

type Answer = dyn Fn(McpElicitation) -> Pin<Box<dyn Future<Output = McpElicitationAnswer> + Send>>
    + Send
    + Sync;

/// The application's function that answers, shared by the session.
#[derive(Clone)]
pub(super) struct Answerer(Arc<Answer>);

impl Answerer {
    pub(super) fn new<F, Fut>(answer: F) -> Self
    where
        F: Fn(McpElicitation) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = McpElicitationAnswer> + Send + 'static,
    {
        Self(Arc::new(move |asked| Box::pin(answer(asked))))
    }

    /// Answers a server's request: a form through the application's function; a URL
    /// elicitation (which needs a browser this client does not open) declined.
    pub(super) async fn answer(&self, request: ElicitRequestParams) -> ElicitResult {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return ElicitResult::new(ElicitationAction::Decline);
        };
        let schema = serde_json::to_value(requested_schema).unwrap_or(Value::Null);
        let asked = McpElicitation::new(message, schema);
        let defaults = asked.defaults();
        match (self.0)(asked).await {
            McpElicitationAnswer::Accept(mut content) => {
                if let Value::Object(fields) = &mut content {
                    for (name, default) in defaults {
                        fields.entry(name).or_insert(default);
                    }
                }
                ElicitResult::new(ElicitationAction::Accept).with_content(content)
            }
            McpElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
            McpElicitationAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        }
    }
}

impl std::fmt::Debug for Answerer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Answerer")
    }
}
