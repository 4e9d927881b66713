//! The page's HTML: the waiting runs, each with its form, the outcome of a decision, and a
//! message. Everything a model, a tool or a person wrote goes through [`shown`] (escaped, its
//! hidden characters marked) or, in an attribute, [`escape`].

use std::time::SystemTime;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::escape::{arguments, editable, escape, push, shown};
use super::form::LONGEST_DENIAL;
use crate::gate::fingerprint;
use crate::gate::{warning, Visible};
use crate::model::{ToolCall, ToolResultStatus};
use crate::register::ToolRegistry;
use crate::run::{rolled_back, LoopOutcome, LoopStatus};
use crate::store::{CallSummary, DecisionRecord, PausedRun, RolledBack};

/// A paused run as the page shows it.
pub(super) struct Waiting<'a> {
    pub(super) run: &'a PausedRun,
    /// The conversation's last user message, when the memory has the conversation.
    pub(super) asked: Option<String>,
    /// What the run did before this pause.
    pub(super) done: Vec<Done>,
    /// The tools, for their descriptions.
    pub(super) registry: &'a ToolRegistry,
}

/// A call a waiting run made before its pause, with the result the model read.
pub(super) struct Done {
    pub(super) summary: CallSummary,
    /// Its result, when the conversation has it.
    pub(super) result: Option<String>,
}

/// Most characters of a result the page shows of what a run did.
const SHOWN_RESULT: usize = 600;

/// The whole page around `body`.
pub(super) fn document(title: &str, heading: &str, body: &str) -> String {
    let (title, heading) = (escape(title), escape(heading));
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{heading} · {title}</title>\n<link rel=\"stylesheet\" href=\"page.css\">\n\
         <script src=\"page.js\" defer></script>\n</head>\n<body>\n\
         <header class=\"top\"><p class=\"product\">{title}</p><h1>{heading}</h1></header>\n\
         <main>\n{body}\n</main>\n</body>\n</html>\n"
    )
}

/// The list of waiting runs, newest first, each with its form.
pub(super) fn list_page(title: &str, waiting: &[Waiting<'_>], csrf: &str) -> String {
    let mut body = String::from(
        "<nav class=\"views\"><a href=\"./\" aria-current=\"page\">Waiting</a> \
         <a href=\"decided\">Decided</a></nav>\n\
         <p class=\"lead\">Runs wait here for your decision on calls that need one. Allow or \
         deny each, then submit once: the run goes on at once. A denial's message is what the \
         model is told.</p>\n<p class=\"status\" role=\"status\" aria-live=\"polite\" \
         id=\"news\"></p>\n<div id=\"runs\">\n",
    );
    for run in waiting {
        body.push_str(&run_section(run, csrf));
    }
    let hidden = if waiting.is_empty() { "" } else { " hidden" };
    push(
        &mut body,
        format_args!(
            "</div>\n<p class=\"empty\" id=\"empty\"{hidden}>Nothing waits for a decision.</p>\n"
        ),
    );
    document(title, "Waiting for your decision", &body)
}

/// One waiting run: what it is about, and a form over its calls.
pub(super) fn run_section(waiting: &Waiting<'_>, csrf: &str) -> String {
    let turn = &waiting.run.turn;
    let id = escape(turn.id().as_str());
    let pause = escape(turn.pause().as_str());
    let mut html = String::new();
    push(
        &mut html,
        format_args!(
            "<section class=\"run\" id=\"run-{id}\" data-run=\"{id}\" data-pause=\"{pause}\">\n\
             <header>"
        ),
    );
    match &waiting.asked {
        Some(asked) => push(
            &mut html,
            format_args!(
                "<h2><span class=\"said\">The user asked</span> <span class=\"text\">{}</span>\
                 </h2>",
                shown(asked)
            ),
        ),
        None => html.push_str("<h2>A run</h2>"),
    }
    push(
        &mut html,
        format_args!(
            "<p class=\"meta\">Paused {} · run <code>{id}</code></p></header>\n",
            time_ago(waiting.run.paused_at, SystemTime::now())
        ),
    );
    if !waiting.done.is_empty() {
        html.push_str(
            "<details class=\"done\" open><summary>Already done in this run</summary>\n\
             <table class=\"calls\"><thead><tr><th scope=\"col\">Tool</th>\
             <th scope=\"col\">Arguments</th><th scope=\"col\">How it ended</th>\
             <th scope=\"col\">Result</th></tr></thead><tbody>\n",
        );
        for done in &waiting.done {
            html.push_str(&done_row(done));
        }
        html.push_str("</tbody></table></details>\n");
    }
    if let Some(deadline) = turn.deadline() {
        push(
            &mut html,
            format_args!(
                "<p class=\"note deadline\" role=\"note\"><strong>Time to decide: {}.</strong> \
                 Past it, each waiting call is denied and the model is told why.</p>\n",
                time_left(deadline, SystemTime::now())
            ),
        );
    }
    if let Some(reached) = turn.budget_reached() {
        push(
            &mut html,
            format_args!(
                "<p class=\"note budget\" role=\"note\"><strong>The run's budget is \
                 spent:</strong> {}. Allowing grants the run its budget again.</p>\n",
                shown(reached)
            ),
        );
    }
    if turn.conversation().is_none() {
        html.push_str(
            "<p class=\"note\">This run keeps its conversation in the application, not in a \
             chat memory: decide on it there.</p>\n</section>\n",
        );
        return html;
    }
    push(
        &mut html,
        format_args!(
            "<form method=\"post\" action=\"decide\">\n\
             <input type=\"hidden\" name=\"csrf\" value=\"{}\">\n\
             <input type=\"hidden\" name=\"run\" value=\"{id}\">\n\
             <input type=\"hidden\" name=\"pause\" value=\"{pause}\">\n",
            escape(csrf),
        ),
    );
    for (index, call) in turn.calls().enumerate() {
        let name = shown(&call.call.name);
        let cannot_run = cannot_run(waiting, call.call);
        let badge = match (call.awaiting, &cannot_run) {
            (true, _) => "<span class=\"badge ask\">needs your decision</span>",
            (false, None) => "<span class=\"badge run\">will run</span>",
            (false, Some(_)) => "<span class=\"badge fail\">will not run</span>",
        };
        push(
            &mut html,
            format_args!(
                "<fieldset class=\"call\">\n<legend><span class=\"tool\">{name}</span> \
                 {badge}</legend>\n"
            ),
        );
        if let Some(tool) = waiting.registry.get(&call.call.name) {
            push(
                &mut html,
                format_args!(
                    "<p class=\"description\">{}</p>\n",
                    shown(&tool.definition().description)
                ),
            );
        }
        if let Some(why) = cannot_run {
            let then = if call.awaiting {
                "Allowing it runs nothing"
            } else {
                "It does not run"
            };
            push(
                &mut html,
                format_args!(
                    "<p class=\"note fail\">{} {then}; the model is told why.</p>\n",
                    shown(&why)
                ),
            );
        }
        let (arguments, hidden) = arguments(&call.call.arguments);
        html.push_str(&hidden_warning(&call.call.name, hidden));
        push(
            &mut html,
            format_args!(
                "<pre class=\"arguments\" aria-label=\"arguments\">{arguments}</pre>\n\
                 <input type=\"hidden\" name=\"call.{index}.key\" value=\"{}\">\n\
                 <input type=\"hidden\" name=\"call.{index}.fingerprint\" value=\"{}\">\n",
                escape(&call.key),
                escape(&fingerprint(call.call))
            ),
        );
        if call.awaiting {
            push(
                &mut html,
                format_args!(
                    "<div class=\"choice\">\
                     <label><input type=\"radio\" name=\"call.{index}.verdict\" value=\"allow\" \
                     required> Allow</label>\
                     <label><input type=\"radio\" name=\"call.{index}.verdict\" value=\"edit\"> \
                     Allow, edited</label>\
                     <label><input type=\"radio\" name=\"call.{index}.verdict\" value=\"deny\"> \
                     Deny</label></div>\n\
                     <details class=\"edit\"><summary>Edit the arguments</summary>\
                     <label class=\"edit\">Arguments to run with, if allowed edited \
                     <span class=\"hint\">(JSON; the model is told what you changed)</span>\
                     <textarea name=\"call.{index}.arguments\" rows=\"{rows}\" \
                     spellcheck=\"false\" data-tool=\"{name_attribute}\" \
                     aria-describedby=\"edit-{id}-{index}\">{editable}</textarea></label>\
                     <p class=\"field-error\" id=\"edit-{id}-{index}\" role=\"alert\" hidden>\
                     </p></details>\n\
                     <label class=\"reason\">Message for the model, if denied\
                     <textarea name=\"call.{index}.message\" rows=\"2\" \
                     maxlength=\"{LONGEST_DENIAL}\"></textarea></label>\n",
                    rows = editable_rows(&call.call.arguments),
                    name_attribute = escape(&call.call.name),
                    editable = editable(&call.call.arguments),
                ),
            );
        } else {
            push(
                &mut html,
                format_args!(
                    "<input type=\"hidden\" name=\"call.{index}.verdict\" value=\"allow\">\n"
                ),
            );
        }
        html.push_str("</fieldset>\n");
    }
    html.push_str(
        "<div class=\"actions\"><button type=\"submit\" class=\"decide\">Submit decisions</button>",
    );
    if turn.awaiting().len() > 1 {
        // Each still sends every call's key and the fingerprint shown: an allowance binds to
        // the calls as the person saw them. `formnovalidate`: no choice needs making first.
        html.push_str(
            "<button type=\"submit\" class=\"all\" name=\"all\" value=\"allow\" \
             formnovalidate>Allow all</button><button type=\"submit\" class=\"all\" \
             name=\"all\" value=\"deny\" formnovalidate>Deny all</button>",
        );
    }
    html.push_str("</div>\n</form>\n</section>\n");
    html
}

/// How many lines a call's arguments take when laid out to edit: enough to see them whole,
/// up to a screenful.
fn editable_rows(arguments: &str) -> usize {
    let fields = arguments.matches(',').count() + 3;
    fields.clamp(3, 20)
}

/// The warning beside a call whose name or arguments (`hidden`, the characters found in them)
/// hold hidden characters; nothing when they hold none.
fn hidden_warning(name: &str, mut hidden: Vec<char>) -> String {
    for &c in Visible::line(name).hidden() {
        if !hidden.contains(&c) {
            hidden.push(c);
        }
    }
    warning(&hidden).map_or_else(String::new, |warning| {
        format!(
            "<p class=\"warning\" role=\"note\"><strong>Look closely.</strong> {}</p>\n",
            escape(&warning)
        )
    })
}

/// Why `call` cannot run whatever is decided, if it cannot: its tool was not offered to the
/// model (one the model made up), or its arguments do not decode.
fn cannot_run(waiting: &Waiting<'_>, call: &ToolCall) -> Option<String> {
    if !waiting.run.turn.request_tools().contains(&call.name) {
        return Some("No tool of this name was offered to the model.".to_owned());
    }
    // A tool of a provider is not in the registry: its call checks its own arguments.
    let tool = waiting.registry.get(&call.name)?;
    let error = tool.check_arguments(&call.arguments).err()?;
    Some(format!(
        "Its arguments do not fit the tool: {}.",
        error.to_string().trim_end_matches('.')
    ))
}

/// What came of a decision on what the person `asked`: the answer, what ran, who decided, and
/// what was rolled back and why.
pub(super) fn outcome_page(title: &str, outcome: &LoopOutcome, asked: Option<&str>) -> String {
    let mut body = String::new();
    if let Some(asked) = asked {
        push(
            &mut body,
            format_args!(
                "<h2 class=\"asked\"><span class=\"said\">The user asked</span> \
                 <span class=\"text\">{}</span></h2>\n",
                shown(asked)
            ),
        );
    }
    push(
        &mut body,
        format_args!(
            "<p class=\"meta\">Run <code>{}</code></p>\n<section class=\"verdict\">{}</section>\n",
            escape(outcome.run_id.as_str()),
            status(&outcome.status)
        ),
    );
    if !outcome.calls.is_empty() {
        body.push_str(
            "<h2>What ran</h2>\n<table class=\"calls\"><thead><tr><th scope=\"col\">Tool</th>\
             <th scope=\"col\">Arguments</th><th scope=\"col\">How it ended</th></tr></thead>\
             <tbody>\n",
        );
        for call in &outcome.calls {
            body.push_str(&call_row(call));
        }
        body.push_str("</tbody></table>\n");
    }
    if !outcome.decisions.is_empty() {
        body.push_str("<h2>Who decided</h2>\n<ul class=\"decisions\">\n");
        for record in &outcome.decisions {
            body.push_str(&decision_item(record));
        }
        body.push_str("</ul>\n");
    }
    if !outcome.compensations.is_empty() {
        body.push_str("<h2>Rolled back</h2>\n");
        if let Some(why) = rollback_reason(&outcome.status) {
            push(
                &mut body,
                format_args!("<p class=\"why\">{}</p>\n", shown(&why)),
            );
        }
        body.push_str("<ul class=\"rollbacks\">\n");
        for report in &outcome.compensations {
            body.push_str(&rollback_item(&rolled_back(report)));
        }
        body.push_str("</ul>\n");
    }
    body.push_str("<p><a href=\"./\">Back to the waiting runs</a></p>\n");
    document(title, "Outcome", &body)
}

/// A page as an answer with `status`.
pub(super) fn html(status: StatusCode, page: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        page,
    )
        .into_response()
}

/// A page saying `message` under `heading`, with a way back.
pub(super) fn message_page(title: &str, heading: &str, message: &str) -> String {
    message_page_linked(title, heading, message, None)
}

/// A page saying `message` under `heading`, with `link` (its address and its words) when
/// there is one, and a way back.
pub(super) fn message_page_linked(
    title: &str,
    heading: &str,
    message: &str,
    link: Option<(&str, &str)>,
) -> String {
    let mut body = format!(
        "<p class=\"message\" role=\"alert\">{}</p>\n<ul class=\"ways\">",
        shown(message)
    );
    if let Some((address, words)) = link {
        push(
            &mut body,
            format_args!(
                "<li><a href=\"{}\">{}</a></li>",
                escape(address),
                escape(words)
            ),
        );
    }
    body.push_str("<li><a href=\"./\">Back to the waiting runs</a></li></ul>\n");
    document(title, heading, &body)
}

fn status(status: &LoopStatus) -> String {
    match status {
        LoopStatus::Answered(answer) => format!(
            "<h2>The model answered</h2>\n<p class=\"answer\">{}</p>",
            shown(answer.text.as_deref().unwrap_or(""))
        ),
        LoopStatus::ReturnedDirect(results) => {
            let texts: Vec<String> = results.iter().map(|r| shown(&r.content)).collect();
            format!(
                "<h2>The tools answered</h2>\n<p class=\"answer\">{}</p>",
                texts.join("<br>")
            )
        }
        LoopStatus::Paused(_) => "<h2>The run paused again</h2>\n<p>It waits on the list for \
                                  the next decisions.</p>"
            .to_owned(),
        LoopStatus::RolledBack { error, .. } => format!(
            "<h2>The run was rolled back</h2>\n<p class=\"text\">{}</p>",
            shown(&error.to_string())
        ),
        LoopStatus::Cancelled => "<h2>The run was cancelled</h2>".to_owned(),
        LoopStatus::MaxRoundsReached => "<h2>The run stopped at its round limit</h2>".to_owned(),
        LoopStatus::BudgetExhausted(limit) => format!(
            "<h2>The run stopped: its budget is spent</h2>\n<p class=\"text\">{}</p>",
            shown(&limit.to_string())
        ),
        LoopStatus::ModelFailed(error) => format!(
            "<h2>The model could not be called</h2>\n<p class=\"text\">{}</p>",
            shown(&error.to_string())
        ),
        LoopStatus::DescribeFailed(error) => format!(
            "<h2>A tool could not be described to the model</h2>\n<p class=\"text\">{}</p>",
            shown(&error.to_string())
        ),
        LoopStatus::StoreFailed => "<h2>The run's store failed</h2>".to_owned(),
    }
}

fn rollback_reason(status: &LoopStatus) -> Option<String> {
    match status {
        LoopStatus::RolledBack { name, .. } => Some(format!(
            "Because {name} failed, what had succeeded was undone, newest first."
        )),
        LoopStatus::Cancelled => {
            Some("Because the run was cancelled, what had succeeded was undone.".to_owned())
        }
        LoopStatus::ModelFailed(_) | LoopStatus::DescribeFailed(_) | LoopStatus::StoreFailed => {
            Some("Because the run could not go on, what had succeeded was undone.".to_owned())
        }
        _ => None,
    }
}

/// A call a waiting run made, as a row: `call_row`'s, with the result the model read.
fn done_row(done: &Done) -> String {
    let row = call_row(&done.summary);
    let result = match &done.result {
        Some(result) => {
            let shown_text: String = result.chars().take(SHOWN_RESULT).collect();
            let cut = if result.chars().count() > SHOWN_RESULT {
                "…"
            } else {
                ""
            };
            format!("<pre class=\"result\">{}{cut}</pre>", shown(&shown_text))
        }
        None => String::new(),
    };
    row.replacen("</tr>", &format!("<td>{result}</td></tr>"), 1)
}

fn call_row(call: &CallSummary) -> String {
    let (ended, class) = match call.status {
        ToolResultStatus::Success => ("ran", "ran"),
        ToolResultStatus::Error if call.started => ("failed", "failed"),
        ToolResultStatus::Error => ("did not run", "failed"),
        ToolResultStatus::Denied => ("denied", "denied"),
        ToolResultStatus::RolledBack => ("ran, then rolled back", "rolled-back"),
    };
    format!(
        "<tr><td class=\"tool\">{}</td><td><pre class=\"arguments\">{}</pre></td>\
         <td class=\"ended {class}\">{ended}</td></tr>\n",
        shown(&call.call.name),
        arguments(&call.call.arguments).0,
    )
}

/// One decision of the run: the call, what was decided, by whom and when.
pub(super) fn decision_item(record: &DecisionRecord) -> String {
    let verdict = match (&record.edited_arguments, record.allowed) {
        (Some(arguments), true) => format!(
            "allowed with edited arguments <code class=\"edited\">{}</code>",
            shown(arguments)
        ),
        (None, true) => "allowed".to_owned(),
        (_, false) => "denied".to_owned(),
    };
    let by = record.decider.as_deref().unwrap_or("someone unnamed");
    let said = record
        .message
        .as_deref()
        .map(|message| format!(": <q>{}</q>", shown(message)))
        .unwrap_or_default();
    format!(
        "<li><span class=\"tool\">{}</span> {verdict} by <span class=\"decider\">{}</span> \
         at {}{said}</li>\n",
        shown(&record.tool),
        shown(by),
        escape(&when(record.decided_at)),
    )
}

/// One rollback: undone, or why not.
pub(super) fn rollback_item(rolled: &RolledBack) -> String {
    match &rolled.failed {
        None => format!(
            "<li><span class=\"tool\">{}</span> undone</li>\n",
            shown(&rolled.tool)
        ),
        Some(error) => format!(
            "<li><span class=\"tool\">{}</span> could not be undone: {}</li>\n",
            shown(&rolled.tool),
            shown(error)
        ),
    }
}

/// A time as a person reads it first, relative to `now` (`3 min ago`), in a `<time>` that
/// holds it exactly (the script keeps the words current) and says it in full on hover.
pub(super) fn time_ago(at: SystemTime, now: SystemTime) -> String {
    let ago = match now.duration_since(at) {
        Ok(ago) => ago.as_secs(),
        // A clock that went back: just now.
        Err(_) => 0,
    };
    time_tag(at, "at", &ago_words(ago))
}

/// How long is left until `deadline`, from `now` (`4 min left`), in a `<time>` that holds the
/// deadline exactly (the script counts it down) and says it in full on hover.
fn time_left(deadline: SystemTime, now: SystemTime) -> String {
    let left = deadline
        .duration_since(now)
        .map_or(0, |left| left.as_secs());
    time_tag(deadline, "until", &left_words(left))
}

/// `<time>` of the instant `at`, its milliseconds in `data-{data}`, reading `words`, and in full
/// on hover; only the full words when `at` is out of the calendar's range.
fn time_tag(at: SystemTime, data: &str, words: &str) -> String {
    let absolute = escape(&when(at));
    let Ok(since) = at.duration_since(SystemTime::UNIX_EPOCH) else {
        return absolute;
    };
    let seconds = i64::try_from(since.as_secs()).unwrap_or(i64::MAX);
    let Some(exact) = chrono::DateTime::from_timestamp(seconds, since.subsec_nanos()) else {
        return absolute;
    };
    format!(
        "<time datetime=\"{}\" data-{data}=\"{}\" title=\"{absolute}\">{words}</time>",
        exact.format("%Y-%m-%dT%H:%M:%SZ"),
        since.as_millis(),
    )
}

/// `seconds` left, in words: `none left`, `under a minute left`, `4 min left`, `2 h left`,
/// `3 days left`.
fn left_words(seconds: u64) -> String {
    match seconds {
        0 => "none left".to_owned(),
        1..60 => "under a minute left".to_owned(),
        60..3_600 => format!("{} min left", seconds / 60),
        3_600..86_400 => format!("{} h left", seconds / 3_600),
        _ => match seconds / 86_400 {
            1 => "1 day left".to_owned(),
            days => format!("{days} days left"),
        },
    }
}

/// `seconds` ago, in words: `just now`, `4 min ago`, `2 h ago`, `3 days ago`.
fn ago_words(seconds: u64) -> String {
    match seconds {
        0..60 => "just now".to_owned(),
        60..3_600 => format!("{} min ago", seconds / 60),
        3_600..86_400 => format!("{} h ago", seconds / 3_600),
        _ => match seconds / 86_400 {
            1 => "1 day ago".to_owned(),
            days => format!("{days} days ago"),
        },
    }
}

/// A time as a person reads it: `2026-12-05 11:21:12 UTC`; one a store holds out of the
/// calendar's range (a corrupt row) as "at an unknown time".
fn when(at: SystemTime) -> String {
    let Ok(since) = at.duration_since(SystemTime::UNIX_EPOCH) else {
        return "at an unknown time".to_owned();
    };
    let seconds = i64::try_from(since.as_secs()).unwrap_or(i64::MAX);
    match chrono::DateTime::from_timestamp(seconds, since.subsec_nanos()) {
        Some(time) => time.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        None => "at an unknown time".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn how_long_ago_reads_in_words_and_holds_the_exact_time() {
        assert_eq!(ago_words(59), "just now");
        assert_eq!(ago_words(60), "1 min ago");
        assert_eq!(ago_words(3_599), "59 min ago");
        assert_eq!(ago_words(7_200), "2 h ago");
        assert_eq!(ago_words(86_400), "1 day ago");
        assert_eq!(ago_words(3 * 86_400 + 5), "3 days ago");
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_600_000);
        let html = time_ago(at, at + Duration::from_secs(300));
        assert_eq!(
            html,
            "<time datetime=\"2026-12-06T23:33:20Z\" data-at=\"1796600000000\" \
             title=\"2026-12-06 23:33:20 UTC\">5 min ago</time>"
        );
        // A clock that went back says just now.
        assert!(time_ago(at, at - Duration::from_secs(5)).contains(">just now<"));
    }

    #[test]
    fn the_time_left_reads_in_words_and_holds_the_deadline() {
        assert_eq!(left_words(0), "none left");
        assert_eq!(left_words(59), "under a minute left");
        assert_eq!(left_words(60), "1 min left");
        assert_eq!(left_words(7_199), "1 h left");
        assert_eq!(left_words(86_400), "1 day left");
        assert_eq!(left_words(2 * 86_400), "2 days left");
        let deadline = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_600_000);
        assert_eq!(
            time_left(deadline, deadline - Duration::from_secs(240)),
            "<time datetime=\"2026-12-06T23:33:20Z\" data-until=\"1796600000000\" \
             title=\"2026-12-06 23:33:20 UTC\">4 min left</time>"
        );
        // Past it: none left.
        assert!(time_left(deadline, deadline + Duration::from_secs(5)).contains(">none left<"));
    }
}
