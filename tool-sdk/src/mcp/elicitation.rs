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

/// The user's answer to an [`McpElicitation`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpElicitationAnswer {
    /// The form, filled in (an object following the schema).
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
        match (self.0)(McpElicitation { message, schema }).await {
            McpElicitationAnswer::Accept(content) => {
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
