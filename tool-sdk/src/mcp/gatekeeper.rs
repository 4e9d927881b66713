//! A served call that needs a person's decision, decided: by the application's policy, by the
//! host's user through an input request (2026-07-28) or an elicitation request (before), or
//! refused where no one can be asked.

use rmcp::model::{
    CallToolResponse, ElicitRequest, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, ProtocolVersion,
};
use rmcp::service::{RequestContext, ServiceError};
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use super::decisions::{McpDecision, McpDecisions, OWN_KEY_TTL};
use super::question::{message, question, read_answer, Answer, DECISION_KEY};
use super::request_state::{self, StateRefused};
use super::result::refusal;
use super::McpError;
use crate::gate::{Sealer, MIN_KEY_BYTES};
use crate::model::ToolCall;

/// How long an elicitation request (older sessions) waits for the user: as long as the request
/// state of an input request lives when the server seals it with a key of its own.
const ASK_TIMEOUT: std::time::Duration = OWN_KEY_TTL;

/// The server's decisions, with the sealer of its request states.
pub(super) struct Gatekeeper {
    decisions: McpDecisions,
    sealer: Sealer,
    /// The server's name, which its request states are bound to.
    server: String,
    /// How long the host's user has to answer, when the server's policy gives a deadline.
    deadline: Option<std::time::Duration>,
}

/// Who allowed a call, as its span names the decider: the server's own decisions.
const SERVER_POLICY: &str = "mcp_server_policy";

/// Who allowed a call, as its span names the decider: the client's user, asked.
pub(super) const CLIENT_USER: &str = "mcp_client_user";

/// What becomes of a call.
pub(super) enum Passage {
    /// Run it; allowed by the named decider when the call needed a decision (its span says so).
    Run(Option<&'static str>),
    /// Run it with these arguments in place of the client's: the host's user corrected them.
    RunEdited(String),
    /// Answer this instead of running it (a refusal, a denial, an input request).
    Answer(Box<CallToolResponse>),
}

impl Gatekeeper {
    /// The gatekeeper of the server named `server`, whose policy gives its questions
    /// `deadline` ([`ConfirmationPolicy::with_deadline`](crate::gate::ConfirmationPolicy::with_deadline)).
    pub(super) fn new(
        decisions: McpDecisions,
        server: &str,
        deadline: Option<std::time::Duration>,
    ) -> Result<Self, McpError> {
        let sealer = match decisions.sealer() {
            // A key given is a key shared, by replicas or by restarts of this process: each
            // request state must be redeemed where all of them look, or it runs once in each.
            Some(sealer) if !sealer.replay_guard_chosen() => {
                return Err(McpError::InvalidSettings(
                    "the sealer of the request states has no replay guard of its own: replicas \
                     sharing its key would each run an allowed call once. Give it the store \
                     they share (`Sealer::with_replay_guard`, e.g. a `PostgresStore`), or, for \
                     one process, an `InMemoryReplayGuard`"
                        .into(),
                ))
            }
            Some(sealer) => sealer.clone(),
            None => own_sealer()?,
        };
        Ok(Self {
            decisions,
            sealer,
            server: server.to_owned(),
            deadline,
        })
    }

    /// Decides a first call (no request state) that needs a decision.
    pub(super) async fn decide(
        &self,
        call: &ToolCall,
        context: &RequestContext<RoleServer>,
    ) -> Result<Passage, ErrorData> {
        match self.decisions.decide(call) {
            McpDecision::Allow => Ok(Passage::Run(Some(SERVER_POLICY))),
            McpDecision::Deny(message) => Ok(Passage::Answer(Box::new(refusal(message).into()))),
            McpDecision::Refuse => Ok(refused(call, "which this MCP server does not ask for")),
            McpDecision::Ask => self.ask(call, context).await,
        }
    }

    async fn ask(
        &self,
        call: &ToolCall,
        context: &RequestContext<RoleServer>,
    ) -> Result<Passage, ErrorData> {
        if !offers_form_elicitation(context) {
            tracing::info!(tool = %call.name, "refused over MCP: the client cannot be asked");
            return Ok(refused(
                call,
                "and this MCP client offers no way to ask its user (it declares no form \
                 elicitation)",
            ));
        }
        let Some(message) = message(call) else {
            tracing::info!(tool = %call.name, "refused over MCP: the arguments are too long to show");
            return Ok(refused(
                call,
                "and its arguments are too long to show its user whole (more than 8,000 bytes \
                 even with long values shortened)",
            ));
        };
        let question = question(message).map_err(|error| {
            ErrorData::internal_error(format!("the question could not be written: {error}"), None)
        })?;
        if speaks_input_requests(context) {
            let sealed = request_state::seal(&self.sealer, &self.server, call, self.deadline);
            let state = sealed.map_err(|error| {
                ErrorData::internal_error(
                    format!("the request state could not be sealed: {error}"),
                    None,
                )
            })?;
            let requests = InputRequests::from([(
                DECISION_KEY.to_owned(),
                InputRequest::Elicitation(ElicitRequest::new(question)),
            )]);
            tracing::info!(tool = %call.name, "asking the host's user with an input request");
            let asked = InputRequiredResult::new(Some(requests), Some(state));
            return Ok(Passage::Answer(Box::new(CallToolResponse::InputRequired(
                asked,
            ))));
        }
        tracing::info!(tool = %call.name, "asking the host's user with an elicitation request");
        let within = self.deadline.unwrap_or(ASK_TIMEOUT);
        let answered = tokio::select! {
            answered = context.peer.create_elicitation_with_timeout(question, Some(within)) => answered,
            () = context.ct.cancelled() => {
                let cancelled = format!(
                    "Error: the call of `{}` was cancelled while its user was asked; it was not \
                     run.",
                    call.name
                );
                return Ok(Passage::Answer(Box::new(refusal(cancelled).into())));
            }
        };
        let answered = match answered {
            Ok(answered) => answered,
            Err(ServiceError::Timeout { .. }) => {
                let unanswered = match self.deadline {
                    Some(_) => format!(
                        "Error: the user did not answer about the call of `{}` before its \
                         deadline; it was not run.",
                        call.name
                    ),
                    None => format!(
                        "Error: the user did not answer about the call of `{}` within {} \
                         minutes; it was not run.",
                        call.name,
                        ASK_TIMEOUT.as_secs() / 60
                    ),
                };
                return Ok(Passage::Answer(Box::new(refusal(unanswered).into())));
            }
            Err(error) => {
                return Err(ErrorData::internal_error(
                    format!("the client's user could not be asked: {error}"),
                    None,
                ))
            }
        };
        let answered = serde_json::to_value(answered).unwrap_or(Value::Null);
        let answer = read_answer(&call.name, &answered)
            .map_err(|why| ErrorData::invalid_params(format!("{why}; nothing ran"), None))?;
        Ok(passage(answer))
    }

    /// Resumes a call retried with a request state and the user's answer. Everything is
    /// checked before the state is used up, so a malformed answer can be sent again; the state
    /// is used up before anything runs, so it never runs twice.
    pub(super) async fn resume(
        &self,
        state: &str,
        responses: Option<&InputResponses>,
        call: &ToolCall,
    ) -> Result<Passage, ErrorData> {
        let opened =
            request_state::open(&self.sealer, &self.server, state, call).map_err(state_error)?;
        let answered = responses
            .and_then(|responses| responses.get(DECISION_KEY))
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("the retry carries no answer under `{DECISION_KEY}`; nothing ran"),
                    None,
                )
            })?;
        let answer = read_answer(&call.name, answered)
            .map_err(|why| ErrorData::invalid_params(format!("{why}; nothing ran"), None))?;
        request_state::consume(&self.sealer, &opened)
            .await
            .map_err(state_error)?;
        let allowed = matches!(answer, Answer::Allow | Answer::AllowEdited(_));
        tracing::info!(tool = %call.name, allowed, "the host's user answered");
        // Past the deadline an allowance runs nothing; the state is used up all the same, so
        // the late answer cannot be sent again.
        if allowed && opened.turn().is_overdue(std::time::SystemTime::now()) {
            let late = format!(
                "Error: the user's answer about the call of `{}` came after its deadline; it \
                 was not run.",
                call.name
            );
            return Ok(Passage::Answer(Box::new(refusal(late).into())));
        }
        Ok(passage(answer))
    }
}

fn passage(answer: Answer) -> Passage {
    match answer {
        Answer::Allow => Passage::Run(Some(CLIENT_USER)),
        Answer::AllowEdited(arguments) => Passage::RunEdited(arguments),
        Answer::Deny(message) => Passage::Answer(Box::new(refusal(message).into())),
    }
}

fn refused(call: &ToolCall, why: &str) -> Passage {
    let refused = format!(
        "Error: calling `{}` needs a person's decision, {why}; the call was not run. Ask the \
         user to run it another way.",
        call.name
    );
    Passage::Answer(Box::new(refusal(refused).into()))
}

fn state_error(refused: StateRefused) -> ErrorData {
    tracing::warn!(%refused, "a retry's request state was refused");
    ErrorData::invalid_params(refused.to_string(), None)
}

/// Whether the session is 2026-07-28 or newer, where a server asks by answering "input
/// required" and may not send requests of its own.
fn speaks_input_requests(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// Whether the client declared form elicitation: `{"elicitation": {}}` (which means form, as
/// before modes existed) or `{"elicitation": {"form": {}}}`.
fn offers_form_elicitation(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|capabilities| capabilities.elicitation)
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// A sealer with a key drawn now, for a server given none.
fn own_sealer() -> Result<Sealer, McpError> {
    let mut key = [0u8; MIN_KEY_BYTES];
    getrandom::fill(&mut key).map_err(|_| {
        McpError::InvalidSettings("no randomness for the key of the request states".into())
    })?;
    let sealer = Sealer::new(&key)
        .map_err(|error| McpError::InvalidSettings(error.to_string()))?
        .with_ttl(OWN_KEY_TTL);
    Ok(sealer)
}
