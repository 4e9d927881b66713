//! The "decided" view: the history of decisions the run store keeps, newest first, paged: what
//! each run was asked, who decided what, and what came of it, "running" while it runs.

use std::time::SystemTime;

use super::escape::{escape, push, shown};
use super::render::{decision_item, document, rollback_item, time_ago};
use crate::store::DecidedRun;

/// How many decided pauses a page of the view lists.
pub(super) const PER_PAGE: usize = 20;

/// The view's page `page` (0 is the newest) of `decided`; `more` when older ones follow.
pub(super) fn decided_page(title: &str, decided: &[DecidedRun], page: usize, more: bool) -> String {
    let mut body = String::from(
        "<nav class=\"views\"><a href=\"./\">Waiting</a> \
         <a href=\"decided\" aria-current=\"page\">Decided</a></nav>\n\
         <p class=\"lead\">The runs decided here or in any process sharing the store, newest \
         first: what each was asked, who decided what, and what came of it.</p>\n",
    );
    push(
        &mut body,
        format_args!(
            "<div id=\"decided\" data-page=\"{page}\">\n{}</div>\n",
            decided_list(decided)
        ),
    );
    body.push_str("<nav class=\"pages\">");
    if page > 0 {
        push(
            &mut body,
            format_args!("<a href=\"decided?page={}\">Newer</a> ", page - 1),
        );
    }
    if more {
        push(
            &mut body,
            format_args!("<a href=\"decided?page={}\">Older</a>", page + 1),
        );
    }
    body.push_str("</nav>\n");
    document(title, "Decided", &body)
}

/// The list of `decided`, as the view shows it and its script refreshes it.
pub(super) fn decided_list(decided: &[DecidedRun]) -> String {
    if decided.is_empty() {
        return "<p class=\"empty\">Nothing was decided yet.</p>\n".to_owned();
    }
    let now = SystemTime::now();
    let mut html = String::new();
    for run in decided {
        let state = if run.is_running() { "running" } else { "ended" };
        push(
            &mut html,
            format_args!(
                "<section class=\"run decided {state}\" data-run=\"{}\" data-state=\"{state}\">\n",
                escape(run.run.as_str())
            ),
        );
        match &run.asked {
            Some(asked) => push(
                &mut html,
                format_args!(
                    "<h2><span class=\"said\">The user asked</span> <span class=\"text\">{}</span>\
                     </h2>\n",
                    shown(asked)
                ),
            ),
            None => html.push_str("<h2>A run</h2>\n"),
        }
        push(
            &mut html,
            format_args!(
                "<p class=\"meta\">Decided {} · run <code>{}</code></p>\n",
                time_ago(run.decided_at, now),
                escape(run.run.as_str())
            ),
        );
        if !run.decisions.is_empty() {
            html.push_str("<ul class=\"decisions\">\n");
            for record in &run.decisions {
                html.push_str(&decision_item(record));
            }
            html.push_str("</ul>\n");
        }
        match &run.ended {
            None => html.push_str(
                "<p class=\"outcome running\" role=\"status\">Running: the run goes on with \
                 these decisions.</p>\n",
            ),
            Some(ended) => {
                push(
                    &mut html,
                    format_args!(
                        "<p class=\"outcome\"><strong>{}</strong></p>\n",
                        shown(&capitalized(&ended.how))
                    ),
                );
                if let Some(answer) = &ended.answer {
                    push(
                        &mut html,
                        format_args!("<p class=\"answer\">{}</p>\n", shown(answer)),
                    );
                }
                if !ended.rollbacks.is_empty() {
                    html.push_str("<p>Rolled back, newest first:</p>\n<ul class=\"rollbacks\">\n");
                    for rolled in &ended.rollbacks {
                        html.push_str(&rollback_item(rolled));
                    }
                    html.push_str("</ul>\n");
                }
            }
        }
        html.push_str("</section>\n");
    }
    html
}

/// `text` with its first letter upper-case.
fn capitalized(text: &str) -> String {
    let mut letters = text.chars();
    match letters.next() {
        Some(first) => first.to_uppercase().chain(letters).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{PauseId, RolledBack, RunEnded, RunId};

    fn decided(run: &str, ended: Option<RunEnded>) -> DecidedRun {
        let mut decided = DecidedRun::running(
            RunId::from_string(run),
            PauseId::from_string("p"),
            Some("<b>book</b>".to_owned()),
            Vec::new(),
            SystemTime::UNIX_EPOCH,
        );
        decided.ended = ended;
        decided
    }

    #[test]
    fn the_view_says_running_or_how_it_ended_escaped_and_pages() {
        let rolled = RunEnded::new(
            SystemTime::UNIX_EPOCH,
            "rolled back: `pay` failed",
            None,
            Vec::new(),
            vec![RolledBack::new("c1", "book", Some("gone".to_owned()))],
        );
        let html = decided_page(
            "Desk",
            &[decided("r2", None), decided("r1", Some(rolled))],
            1,
            true,
        );
        assert!(
            html.contains("data-run=\"r2\" data-state=\"running\""),
            "{html}"
        );
        assert!(html.contains("Running: the run goes on"), "{html}");
        assert!(
            html.contains("<strong>Rolled back: `pay` failed</strong>"),
            "{html}"
        );
        assert!(
            html.contains("book</span> could not be undone: gone"),
            "{html}"
        );
        assert!(html.contains("&lt;b&gt;book&lt;/b&gt;"), "{html}");
        assert!(
            html.contains("<a href=\"decided?page=0\">Newer</a>"),
            "{html}"
        );
        assert!(
            html.contains("<a href=\"decided?page=2\">Older</a>"),
            "{html}"
        );
        let first = decided_page("Desk", &[], 0, false);
        assert!(first.contains("Nothing was decided yet."));
        assert!(!first.contains("Newer") && !first.contains("Older"));
    }
}
