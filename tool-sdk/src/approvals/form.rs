//! A submitted decision form, read into the decisions it carries.

use crate::gate::{ToolCallDecision, ToolCallDecisions};
use crate::store::{PauseId, RunId};

/// What a denial tells the model when the person wrote nothing.
const DEFAULT_DENIAL: &str = "A person denied this call.";

/// The longest denial message, in characters: the page's text area stops there, and the
/// server refuses a longer one from anything else.
pub(super) const LONGEST_DENIAL: usize = 2_000;

/// The largest decision form the server reads, in bytes: room for many calls, each with a
/// message of the longest length in any script, percent-encoded.
pub(super) const LARGEST_FORM: usize = 256 * 1024;

/// The decisions of one submitted form, and the run they are for.
#[derive(Debug)]
pub(super) struct DecisionForm {
    pub(super) csrf: String,
    pub(super) run: RunId,
    pub(super) decisions: ToolCallDecisions,
}

/// One call's fields, gathered by index.
#[derive(Default)]
struct CallFields {
    key: Option<String>,
    fingerprint: Option<String>,
    verdict: Option<String>,
    message: Option<String>,
    arguments: Option<String>,
}

/// Reads the form's fields: `csrf`, `run`, `pause`, and for each call `call.N.key`,
/// `call.N.fingerprint`, `call.N.verdict` (`allow`, `edit` or `deny`), `call.N.message` and
/// `call.N.arguments` (what an edited allowance runs with); `all`
/// (`allow` or `deny`, sent by the "Allow all" and "Deny all" buttons) gives every call that
/// verdict, each allowance still bound to the fingerprint the page showed. A field missing or
/// out of place is an error naming it.
pub(super) fn read(fields: Vec<(String, String)>) -> Result<DecisionForm, String> {
    let (mut csrf, mut run, mut pause, mut all) = (None, None, None, None);
    let mut calls: Vec<CallFields> = Vec::new();
    for (name, value) in fields {
        match name.as_str() {
            "csrf" => csrf = Some(value),
            "run" => run = Some(value),
            "pause" => pause = Some(value),
            "all" => match value.as_str() {
                "allow" | "deny" => all = Some(value),
                other => return Err(format!("the form says `{other}` for all its calls")),
            },
            _ => {
                let (index, field) = call_field(&name)?;
                if index >= 256 {
                    return Err(format!("the form names call {index}: too many calls"));
                }
                if calls.len() <= index {
                    calls.resize_with(index + 1, CallFields::default);
                }
                let slot = match field {
                    "key" => &mut calls[index].key,
                    "fingerprint" => &mut calls[index].fingerprint,
                    "verdict" => &mut calls[index].verdict,
                    "message" => &mut calls[index].message,
                    "arguments" => &mut calls[index].arguments,
                    other => {
                        return Err(format!(
                            "the form has an unknown field `call.{index}.{other}`"
                        ))
                    }
                };
                *slot = Some(value);
            }
        }
    }
    let run = run.ok_or("the form names no run")?;
    let pause = pause.ok_or("the form names no pause")?;
    let mut decisions = ToolCallDecisions::for_pause(PauseId::from_string(pause));
    if let Some(all) = all {
        for call in &mut calls {
            call.verdict = Some(all.clone());
        }
    }
    for (index, call) in calls.into_iter().enumerate() {
        decisions.push(decision(index, call)?);
    }
    Ok(DecisionForm {
        csrf: csrf.unwrap_or_default(),
        run: RunId::from_string(run),
        decisions,
    })
}

/// `call.3.verdict` as `(3, "verdict")`.
fn call_field(name: &str) -> Result<(usize, &str), String> {
    let unknown = || format!("the form has an unknown field `{name}`");
    let rest = name.strip_prefix("call.").ok_or_else(unknown)?;
    let (index, field) = rest.split_once('.').ok_or_else(unknown)?;
    Ok((index.parse().map_err(|_| unknown())?, field))
}

fn decision(index: usize, call: CallFields) -> Result<ToolCallDecision, String> {
    let key = call.key.ok_or(format!("call {index} has no key"))?;
    match call.verdict.as_deref() {
        Some("allow") => {
            let fingerprint = call
                .fingerprint
                .ok_or(format!("call `{key}` has no fingerprint"))?;
            Ok(ToolCallDecision::allow(key, fingerprint))
        }
        Some("edit") => {
            let fingerprint = call
                .fingerprint
                .ok_or(format!("call `{key}` has no fingerprint"))?;
            let arguments = call
                .arguments
                .ok_or(format!("call `{key}` is allowed edited, with no arguments"))?;
            Ok(ToolCallDecision::allow_edited(key, fingerprint, arguments))
        }
        Some("deny") => {
            if let Some(long) = call
                .message
                .as_ref()
                .map(|m| m.trim().chars().count())
                .filter(|&n| n > LONGEST_DENIAL)
            {
                return Err(format!(
                    "the message for call `{key}` has {long} characters, more than the \
                     {LONGEST_DENIAL} a denial may have"
                ));
            }
            let message = call
                .message
                .map(|m| m.trim().to_owned())
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| DEFAULT_DENIAL.to_owned());
            Ok(ToolCallDecision::deny(key, message))
        }
        Some(other) => Err(format!("call `{key}` has an unknown verdict `{other}`")),
        None => Err(format!(
            "call `{key}` has no decision: choose allow, allow edited or deny for each call"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_form_becomes_the_decisions_it_carries() {
        let form = read(fields(&[
            ("csrf", "t"),
            ("run", "r-1"),
            ("pause", "p-1"),
            ("call.0.key", "a"),
            ("call.0.fingerprint", "fa"),
            ("call.0.verdict", "allow"),
            ("call.1.key", "b"),
            ("call.1.fingerprint", "fb"),
            ("call.1.verdict", "deny"),
            ("call.1.message", "  not today  "),
        ]))
        .expect("a well-formed form");
        assert_eq!(form.csrf, "t");
        assert_eq!(form.run.as_str(), "r-1");
        assert_eq!(form.decisions.pause().as_str(), "p-1");
        assert_eq!(
            form.decisions.decisions(),
            [
                ToolCallDecision::allow("a", "fa"),
                ToolCallDecision::deny("b", "not today")
            ]
        );
        // Who decided is not the form's to say: the page's check names them.
        assert_eq!(form.decisions.decider(), None);
    }

    #[test]
    fn an_edited_allowance_carries_the_persons_arguments() {
        let form = |arguments: Option<&str>| {
            let mut pairs = vec![
                ("csrf", "t"),
                ("run", "r-1"),
                ("pause", "p-1"),
                ("call.0.key", "a"),
                ("call.0.fingerprint", "fa"),
                ("call.0.verdict", "edit"),
            ];
            pairs.extend(arguments.map(|arguments| ("call.0.arguments", arguments)));
            read(fields(&pairs))
        };
        let edited = form(Some(r#"{"euros": 300}"#)).expect("a well-formed form");
        assert_eq!(
            edited.decisions.decisions(),
            [ToolCallDecision::allow_edited(
                "a",
                "fa",
                r#"{"euros": 300}"#
            )]
        );
        assert_eq!(
            form(None).unwrap_err(),
            "call `a` is allowed edited, with no arguments"
        );
    }

    #[test]
    fn allow_all_and_deny_all_decide_every_call_at_its_fingerprint() {
        let form = |all: &str| {
            read(fields(&[
                ("csrf", "t"),
                ("run", "r-1"),
                ("pause", "p-1"),
                ("call.0.key", "a"),
                ("call.0.fingerprint", "fa"),
                ("call.0.verdict", "deny"),
                ("call.1.key", "b"),
                ("call.1.fingerprint", "fb"),
                ("call.1.message", "later"),
                ("all", all),
            ]))
        };
        let allowed = form("allow").expect("a well-formed form");
        assert_eq!(
            allowed.decisions.decisions(),
            [
                ToolCallDecision::allow("a", "fa"),
                ToolCallDecision::allow("b", "fb")
            ]
        );
        let denied = form("deny").expect("a well-formed form");
        assert_eq!(
            denied.decisions.decisions(),
            [
                ToolCallDecision::deny("a", DEFAULT_DENIAL),
                ToolCallDecision::deny("b", "later")
            ]
        );
        assert!(form("maybe").unwrap_err().contains("`maybe`"));
    }

    #[test]
    fn a_form_missing_a_part_says_which() {
        let undecided = read(fields(&[("run", "r"), ("pause", "p"), ("call.0.key", "a")]));
        assert!(undecided.unwrap_err().contains("no decision"));
        let stray = read(fields(&[("run", "r"), ("pause", "p"), ("call.x.key", "a")]));
        assert!(stray.unwrap_err().contains("unknown field"));
        let huge = read(fields(&[
            ("run", "r"),
            ("pause", "p"),
            ("call.9999.key", "a"),
        ]));
        assert!(huge.unwrap_err().contains("too many"));
        assert!(read(fields(&[("pause", "p")]))
            .unwrap_err()
            .contains("no run"));
        let long = "é".repeat(LONGEST_DENIAL + 1);
        let wordy = read(fields(&[
            ("run", "r"),
            ("pause", "p"),
            ("call.0.key", "a"),
            ("call.0.verdict", "deny"),
            ("call.0.message", &long),
        ]));
        assert!(wordy.unwrap_err().contains("more than the 2000"));
        let longest = "é".repeat(LONGEST_DENIAL);
        let fits = read(fields(&[
            ("run", "r"),
            ("pause", "p"),
            ("call.0.key", "a"),
            ("call.0.verdict", "deny"),
            ("call.0.message", &longest),
        ]));
        assert!(fits.is_ok());
    }
}
