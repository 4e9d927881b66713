//! What each address of the page answers.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::rejection::FormRejection;
use axum::extract::{Extension, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Form;

use super::authorize::Decider;
use super::history;
use super::render::{
    html, list_page, message_page, message_page_linked, outcome_page, run_section,
};
use super::shared::Shared;
use super::{csrf, form};
use crate::gate::GateError;
use crate::run::Conversation;
use crate::store::{RunId, StoreError};

/// The page's style and script: files of their own, so that the content security policy
/// allows no inline code.
const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// `GET /`: the waiting runs, newest first. A browser without a session gets one.
pub(super) async fn list(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let (session, fresh) = match csrf::session_of(&headers) {
        Some(session) => (session, false),
        None => match csrf::new_session() {
            Ok(session) => (session, true),
            Err(error) => return failed_with(&shared, &error),
        },
    };
    let paused = match shared.paused().await {
        Ok(paused) => paused,
        Err(error) => return failed_with(&shared, &error),
    };
    let waiting = shared.waiting(&paused).await;
    let token = shared.csrf.token(&session);
    let mut response = html(StatusCode::OK, list_page(&shared.title, &waiting, &token));
    if fresh {
        let cookie = format!("{}={session}; HttpOnly; SameSite=Lax; Path=/", csrf::COOKIE);
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
    }
    response
}

/// `GET /runs`: which runs wait, as JSON (`{"runs": [{"id", "pause"}]}`), newest first, for
/// the page to drop those decided elsewhere and fetch those it lacks (`/run`). What every open
/// page asks every few seconds: one read of the store, no conversation loaded.
pub(super) async fn runs(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if csrf::session_of(&headers).is_none() {
        return (StatusCode::FORBIDDEN, "reload the page").into_response();
    }
    let paused = match shared.paused().await {
        Ok(paused) => paused,
        Err(error) => return store_unavailable(&error),
    };
    let runs: Vec<serde_json::Value> = paused
        .iter()
        .map(|run| {
            serde_json::json!({
                "id": run.turn.id().as_str(),
                "pause": run.turn.pause().as_str(),
            })
        })
        .collect();
    json(&serde_json::json!({ "runs": runs }))
}

/// `GET /run?id=…`: one waiting run's section, as JSON (`{"id", "pause", "html"}`), for the
/// page to add a run that paused since it was loaded; 404 when the run waits no more.
pub(super) async fn run(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let Some(session) = csrf::session_of(&headers) else {
        return (StatusCode::FORBIDDEN, "reload the page").into_response();
    };
    let paused = match shared.paused().await {
        Ok(paused) => paused,
        Err(error) => return store_unavailable(&error),
    };
    let wanted = query.get("id").map(String::as_str);
    let Some(found) = paused
        .iter()
        .position(|run| Some(run.turn.id().as_str()) == wanted)
    else {
        return (StatusCode::NOT_FOUND, "the run waits no more").into_response();
    };
    let waiting = shared.waiting(&paused[found..=found]).await;
    let Some(waiting) = waiting.first() else {
        return (StatusCode::NOT_FOUND, "the run waits no more").into_response();
    };
    let token = shared.csrf.token(&session);
    json(&serde_json::json!({
        "id": waiting.run.turn.id().as_str(),
        "pause": waiting.run.turn.pause().as_str(),
        "html": run_section(waiting, &token),
    }))
}

fn json(value: &serde_json::Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

fn store_unavailable(error: &StoreError) -> Response {
    tracing::error!(%error, "the approval page could not list the paused runs");
    (StatusCode::SERVICE_UNAVAILABLE, "the run store failed").into_response()
}

/// `POST /decide`: checks the form, resumes the run with its decisions, and sends the browser
/// to the outcome.
pub(super) async fn decide(
    State(shared): State<Arc<Shared>>,
    decider: Option<Extension<Decider>>,
    headers: HeaderMap,
    fields: Result<Form<Vec<(String, String)>>, FormRejection>,
) -> Response {
    let refused = |status, heading: &str, message: &str| {
        html(status, message_page(&shared.title, heading, message))
    };
    let fields = match fields {
        Ok(Form(fields)) => fields,
        Err(rejection) => {
            return refused(
                rejection.status(),
                "The form was refused",
                &format!(
                    "Nothing ran: {} (a form may have at most {} KiB).",
                    rejection.body_text(),
                    form::LARGEST_FORM / 1024
                ),
            )
        }
    };
    let form = match form::read(fields) {
        // Who decided: the person the check let through. The guard names one for every
        // request; were it ever missing, the page says only that it was the page.
        Ok(mut form) => {
            let who =
                decider.map_or_else(|| "approval_page".to_owned(), |Extension(Decider(who))| who);
            form.decisions = form.decisions.with_decider(who);
            form
        }
        Err(problem) => {
            return refused(
                StatusCode::BAD_REQUEST,
                "The form is not whole",
                &format!("Nothing ran: {problem}."),
            )
        }
    };
    if !shared
        .csrf
        .verify_any(&csrf::sessions_of(&headers), &form.csrf)
    {
        return refused(
            StatusCode::FORBIDDEN,
            "Not allowed",
            "Nothing ran: the form's security token is missing or wrong. Reload the page and \
             decide again.",
        );
    }
    let turn = match shared.agent.run_store().load_paused(&form.run).await {
        Ok(turn) => turn,
        Err(StoreError::AlreadyDecided(_)) => return decided_already(&shared, &form.run),
        Err(StoreError::UnknownRun(_)) => {
            return refused(
                StatusCode::NOT_FOUND,
                "No such run",
                "Nothing ran: no run waits under this id.",
            )
        }
        Err(error) => return failed_with(&shared, &error),
    };
    let Some(conversation) = turn.conversation() else {
        return refused(
            StatusCode::CONFLICT,
            "Decide in the application",
            "Nothing ran: this run keeps its conversation in the application, not in a chat \
             memory, so it is decided there.",
        );
    };
    // The resume runs in a task of its own, and keeps its outcome there: a browser that
    // leaves (a closed tab, a proxy's timeout) drops this handler, and must drop neither a run
    // taken from its pause half-way nor what came of it.
    let resuming = {
        let (shared, conversation) = (Arc::clone(&shared), conversation.to_owned());
        let (run, decisions) = (form.run.clone(), form.decisions);
        tokio::spawn(async move {
            let outcome = shared
                .agent
                .resume(Conversation::Owned(Vec::new()), &run, &decisions)
                .with_memory(&*shared.memory, &conversation)
                .await?;
            let asked = shared.asked(&conversation).await;
            shared
                .outcomes
                .keep(run, outcome_page(&shared.title, &outcome, asked.as_deref()));
            Ok::<(), GateError>(())
        })
    };
    let resumed = match resuming.await {
        Ok(resumed) => resumed,
        Err(error) => {
            tracing::error!(run = %form.run, %error, "a resume from the approval page failed");
            return failed(
                &shared,
                "The run stopped unexpectedly; see the server's log.",
            );
        }
    };
    match resumed {
        Ok(()) => {
            let location = format!("outcome?run={}", percent_encode(form.run.as_str()));
            (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response()
        }
        Err(GateError::AlreadyDecided { .. }) => decided_already(&shared, &form.run),
        Err(GateError::ArgumentsChanged { key }) => refused(
            StatusCode::CONFLICT,
            "The calls changed",
            &format!(
                "Nothing ran: the allowance of call `{key}` is for other arguments than the \
                 call has. Reload the page and decide on what it shows."
            ),
        ),
        Err(GateError::EditRefused { key, reason }) => refused(
            StatusCode::BAD_REQUEST,
            "The edited arguments do not fit",
            &format!(
                "Nothing ran, and the run still waits: the arguments given for call `{key}` do \
                 not fit its tool: {reason}. Go back, correct them, and decide again."
            ),
        ),
        Err(GateError::DeadlinePassed { .. }) => refused(
            StatusCode::CONFLICT,
            "Too late to allow",
            "Nothing ran: the time to decide on this run has passed. Past it a waiting call may \
             only be denied, and the page's server denies each, telling the model why.",
        ),
        Err(GateError::Store(error)) => failed_with(&shared, &error),
        Err(error) => refused(
            StatusCode::BAD_REQUEST,
            "The decisions were refused",
            &format!("Nothing ran, and the run still waits: {error}."),
        ),
    }
}

/// `POST /check`: whether arguments a person edited fit the tool they are for, for the page to
/// show what does not at the field before anything is submitted (`{"error": null}` or
/// `{"error": "..."}`). The decision is checked again when it is submitted. A tool the page's
/// loop does not register itself (a consumed server's) is checked then, by its server.
pub(super) async fn check(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Form(fields): Form<HashMap<String, String>>,
) -> Response {
    let token = fields.get("csrf").map_or("", String::as_str);
    if !shared.csrf.verify_any(&csrf::sessions_of(&headers), token) {
        return (StatusCode::FORBIDDEN, "reload the page").into_response();
    }
    let (Some(tool), Some(arguments)) = (fields.get("tool"), fields.get("arguments")) else {
        return (
            StatusCode::BAD_REQUEST,
            "a check needs `tool` and `arguments`",
        )
            .into_response();
    };
    let registry = shared.agent.registry();
    let error = match registry.get(tool) {
        Some(_) => registry
            .check(tool, arguments)
            .err()
            .map(|error| error.to_string()),
        None => None,
    };
    json(&serde_json::json!({ "error": error }))
}

/// `GET /decided?page=N`: the history of decisions, newest first, a page at a time (0 the
/// newest); with `part=list`, the list alone, for the view's script to keep it current.
pub(super) async fn decided(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let page: usize = query
        .get("page")
        .and_then(|page| page.parse().ok())
        .unwrap_or(0);
    let skip = page.saturating_mul(history::PER_PAGE);
    // One more than a page: whether older ones follow.
    let listed = shared
        .agent
        .run_store()
        .list_decided(skip, history::PER_PAGE + 1)
        .await;
    let mut decided = match listed {
        Ok(decided) => decided,
        Err(error) => return failed_with(&shared, &error),
    };
    let more = decided.len() > history::PER_PAGE;
    decided.truncate(history::PER_PAGE);
    if query.get("part").is_some_and(|part| part == "list") {
        return html(StatusCode::OK, history::decided_list(&decided));
    }
    html(
        StatusCode::OK,
        history::decided_page(&shared.title, &decided, page, more),
    )
}

/// `GET /outcome?run=ID`: what came of the latest decision on a run.
pub(super) async fn outcome(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let page = query
        .get("run")
        .and_then(|run| shared.outcomes.get(&RunId::from_string(run.as_str())));
    match page {
        Some(page) => html(StatusCode::OK, page.to_string()),
        None => html(
            StatusCode::NOT_FOUND,
            message_page(
                &shared.title,
                "No outcome here",
                "This page keeps the outcomes of its latest decisions only, and has none for \
                 this run.",
            ),
        ),
    }
}

pub(super) async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

pub(super) async fn script() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        SCRIPT,
    )
        .into_response()
}

/// The answer to a decision on a run decided already: what came of that decision, when this
/// page made it and has its outcome, and the way back to the list.
fn decided_already(shared: &Shared, run: &RunId) -> Response {
    let outcome = format!("outcome?run={}", percent_encode(run.as_str()));
    let link = shared
        .outcomes
        .get(run)
        .map(|_| (outcome.as_str(), "See what came of the decision made"));
    html(
        StatusCode::CONFLICT,
        message_page_linked(
            &shared.title,
            "Decided already",
            "Nothing ran for this submission: the run was decided already, in another tab, by \
             someone else, or by this form sent twice. Each decision runs once.",
            link,
        ),
    )
}

/// The page for a failure of the server's own, whose details go to its log, not the browser.
fn failed_with(shared: &Shared, error: &dyn std::fmt::Display) -> Response {
    tracing::error!(%error, "the approval page failed");
    failed(
        shared,
        "The server could not reach its run store; see its log.",
    )
}

fn failed(shared: &Shared, problem: &str) -> Response {
    html(
        StatusCode::SERVICE_UNAVAILABLE,
        message_page(&shared.title, "Something failed", problem),
    )
}

/// `text` safe in a URL's query: every byte but unreserved ones as `%XX`.
fn percent_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}
