//! The question put to the host's user about one call, as an elicitation form, and how their
//! answer reads.

use rmcp::model::{ElicitRequestParams, ElicitationSchema};
use serde_json::{json, Value};

use crate::gate::json::{tokens, Token};
use crate::gate::{warning, Visible};
use crate::model::ToolCall;

/// The key of the one input request an asking call sends, and of its answer.
pub(super) const DECISION_KEY: &str = "decision";

/// The longest string value the question shows whole, in characters: a longer one shows its
/// start and its end, and how many characters between are not shown.
const SHOWN_STRING: usize = 160;

/// The longest question asked, in bytes: past it (arguments with very many keys or values)
/// the host's dialog would be a wall no one reads whole, and no one is asked.
pub(super) const LONGEST_QUESTION: usize = 8_000;

/// What the person answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Answer {
    Allow,
    /// Allowed to run with these arguments (a JSON object, as text) in place of the
    /// assistant's.
    AllowEdited(String),
    /// The text the client's model reads as the tool's error.
    Deny(String),
}

/// The elicitation form for `message` (see [`message`]): a choice of allow or deny, a reason,
/// and the arguments to run the call with instead, for a person who corrects them.
pub(super) fn question(message: String) -> Result<ElicitRequestParams, serde_json::Error> {
    let schema: ElicitationSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "oneOf": [
                    {"const": "allow", "title": "Allow"},
                    {"const": "deny", "title": "Deny"},
                ],
            },
            "reason": {
                "type": "string",
                "title": "Reason",
                "description": "Told to the assistant when you deny the call.",
            },
            "arguments": {
                "type": "string",
                "title": "Arguments",
                "description": "To allow the call with other arguments: the JSON object to run \
                                it with (the assistant is told what you changed). Leave empty to \
                                run it as asked.",
            },
        },
        "required": ["decision"],
    }))?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    })
}

/// "The assistant wants to call `transfer` with {...}. Allow it?", showing every key and
/// every number of the arguments, each long string with its middle elided, and every hidden
/// character as a marker, with a warning when there is one. `None` when even so the question
/// would be longer than [`LONGEST_QUESTION`]: the person is then not asked.
pub(super) fn message(call: &ToolCall) -> Option<String> {
    let name = Visible::line(&call.name);
    let (arguments, mut hidden) = shown_arguments(&call.arguments);
    note(&mut hidden, name.hidden());
    let mut message = format!("The assistant wants to call `{name}` with {arguments}. Allow it?");
    if let Some(warning) = warning(&hidden) {
        message.push_str("\n\n");
        message.push_str(&warning);
    }
    (message.len() <= LONGEST_QUESTION).then_some(message)
}

/// The arguments on one line, compact, every string through [`Visible::line`] and a long value
/// elided in the middle (a key never is: two keys that differ only in their middle would read
/// alike); the hidden characters found. Text that is not JSON is shown whole.
fn shown_arguments(arguments: &str) -> (String, Vec<char>) {
    let Some(tokens) = tokens(arguments) else {
        let shown = Visible::line(arguments);
        return (shown.to_string(), shown.hidden().to_vec());
    };
    let mut out = String::with_capacity(arguments.len().min(LONGEST_QUESTION));
    let mut hidden = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        match token {
            Token::Open(c) | Token::Close(c) => out.push(*c),
            Token::Comma => out.push(','),
            Token::Colon => out.push(':'),
            Token::Scalar(text) => out.push_str(text),
            Token::String(text) => {
                // What the elision leaves out still warns.
                let quoted = Token::quoted(text);
                note(&mut hidden, Visible::line(&quoted).hidden());
                let is_key = matches!(tokens.get(at + 1), Some(Token::Colon));
                let shown = if is_key { quoted } else { elided(text) };
                out.push_str(Visible::line(&shown).as_str());
            }
        }
    }
    (out, hidden)
}

/// Adds the characters of `found` that `hidden` does not hold yet.
fn note(hidden: &mut Vec<char>, found: &[char]) {
    for &c in found {
        if !hidden.contains(&c) {
            hidden.push(c);
        }
    }
}

/// `text` quoted as JSON; past [`SHOWN_STRING`] characters, its start and end around a note of
/// how many characters between are not shown.
fn elided(text: &str) -> String {
    let count = text.chars().count();
    if count <= SHOWN_STRING {
        return Token::quoted(text);
    }
    let kept = SHOWN_STRING / 2;
    let start: String = text.chars().take(kept).collect();
    let end: String = text.chars().skip(count - kept).collect();
    let (start, end) = (Token::quoted(&start), Token::quoted(&end));
    format!(
        "{}…({} more characters, not shown)…{}",
        &start[..start.len() - 1],
        count - 2 * kept,
        &end[1..]
    )
}

/// Reads an elicitation result (`{"action": ..., "content": {...}}`) about `tool`; `Err` says
/// what is wrong with one that is not an answer to the question.
pub(super) fn read_answer(tool: &str, result: &Value) -> Result<Answer, String> {
    let action = result
        .get("action")
        .and_then(Value::as_str)
        .ok_or("the answer has no `action`")?;
    match action {
        "accept" => {}
        "decline" => {
            return Ok(Answer::Deny(format!(
                "Error: the user declined the call of `{tool}`; it was not run."
            )))
        }
        "cancel" => {
            return Ok(Answer::Deny(format!(
                "Error: the user dismissed the question about `{tool}` without deciding; the \
                 call was not run."
            )))
        }
        other => {
            return Err(format!(
                "the answer's action `{other}` is not one MCP defines"
            ))
        }
    }
    let content = result
        .get("content")
        .and_then(Value::as_object)
        .ok_or("an accepted answer has no `content` object")?;
    let reason = content
        .get("reason")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|reason| !reason.is_empty());
    let edited = content
        .get("arguments")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|arguments| !arguments.is_empty());
    match content.get("decision").and_then(Value::as_str) {
        Some("allow") => Ok(edited.map_or(Answer::Allow, |arguments| {
            Answer::AllowEdited(arguments.to_owned())
        })),
        Some("deny") => Ok(Answer::Deny(match reason {
            Some(reason) => format!("Error: the user denied the call of `{tool}`: {reason}"),
            None => format!("Error: the user denied the call of `{tool}`; it was not run."),
        })),
        _ => Err("the answer's `decision` is neither \"allow\" nor \"deny\"".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_names_the_tool_and_its_arguments_and_offers_a_choice() {
        let call = ToolCall::new("c1", "transfer", r#"{ "to": "bob",  "amount": 5 }"#);
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = question(super::message(&call).unwrap()).unwrap()
        else {
            panic!("not a form")
        };
        assert_eq!(
            message,
            r#"The assistant wants to call `transfer` with {"to":"bob","amount":5}. Allow it?"#
        );
        let schema = serde_json::to_value(requested_schema).unwrap();
        assert_eq!(schema["required"], json!(["decision"]));
        assert_eq!(
            schema["properties"]["decision"]["oneOf"][1]["const"],
            "deny"
        );
    }

    #[test]
    fn every_key_and_number_shows_however_long_a_value_before_them() {
        let to = format!("bob{}", " ".repeat(1_000));
        let memo = json!({"note": "é".repeat(800)}).to_string();
        let memo = format!("{},\"big\":18446744073709551617}}", &memo[..memo.len() - 1]);
        let arguments = format!(r#"{{"to":"{to}","amount":999999,"memo":{memo}}}"#);
        let call = ToolCall::new("c1", "transfer", arguments);
        let message = message(&call).expect("asked");
        assert!(message.contains(r#""amount":999999"#), "{message}");
        assert!(
            message.contains(r#""big":18446744073709551617"#),
            "{message}"
        );
        assert!(message.contains(r#""note":"éé"#), "{message}");
        assert!(
            message.contains(&format!(
                r#""to":"bob{}…(843 more characters, not shown)…"#,
                " ".repeat(77)
            )),
            "{message}"
        );
        assert!(message.len() < 1_200, "{}", message.len());
    }

    #[test]
    fn a_long_key_is_shown_whole_where_a_long_value_is_elided() {
        // Two keys that differ only in their middle.
        let (left, right) = ("k".repeat(100), "k".repeat(100));
        let (first, second) = (format!("{left}A{right}"), format!("{left}B{right}"));
        let value = "v".repeat(400);
        let arguments = serde_json::json!({"labels": {&first: value, &second: "x"}}).to_string();
        let question = message(&ToolCall::new("c1", "tag", arguments)).expect("asked");
        assert!(question.contains(&format!("\"{first}\":")), "{question}");
        assert!(question.contains(&format!("\"{second}\":")), "{question}");
        assert!(
            question.contains("more characters, not shown"),
            "{question}"
        );
    }

    #[test]
    fn arguments_too_many_to_show_whole_are_not_asked_about() {
        let many: serde_json::Map<String, Value> =
            (0..2_000).map(|n| (format!("k{n}"), json!(n))).collect();
        let call = ToolCall::new("c1", "transfer", Value::Object(many).to_string());
        assert_eq!(message(&call), None);
    }

    #[test]
    fn hidden_characters_show_as_markers_with_a_warning() {
        let call = ToolCall::new(
            "c1",
            "send_email",
            json!({"to": "\u{202E}moc.elpmaxe@maet", "body": format!("hi{}\u{200B}", "x".repeat(300))})
                .to_string(),
        );
        let message = message(&call).expect("asked");
        assert!(
            message.contains(r#""to":"⟨U+202E⟩moc.elpmaxe@maet""#),
            "{message}"
        );
        assert!(!message.contains('\u{202E}'), "{message}");
        // Found in the elided end too, and named in the warning.
        assert!(message.contains("Hidden characters"), "{message}");
        assert!(message.contains("(U+202E, U+200B)"), "{message}");
    }

    #[test]
    fn answers_read_as_allow_or_deny_with_the_reason() {
        let read = |value: Value| read_answer("rm", &value);
        assert_eq!(
            read(json!({"action": "accept", "content": {"decision": "allow"}})),
            Ok(Answer::Allow)
        );
        assert_eq!(
            read(
                json!({"action": "accept", "content": {"decision": "deny", "reason": " too risky "}})
            ),
            Ok(Answer::Deny(
                "Error: the user denied the call of `rm`: too risky".into()
            ))
        );
        assert!(matches!(
            read(json!({"action": "decline"})),
            Ok(Answer::Deny(_))
        ));
        assert!(matches!(
            read(json!({"action": "cancel"})),
            Ok(Answer::Deny(_))
        ));
        for malformed in [
            json!({}),
            json!({"action": "accept"}),
            json!({"action": "accept", "content": {"decision": "yes"}}),
            json!({"action": "shrug"}),
            json!("allow"),
        ] {
            assert!(read(malformed.clone()).is_err(), "{malformed}");
        }
    }
}
