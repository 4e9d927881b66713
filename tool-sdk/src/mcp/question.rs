//! The question put to the host's user about one call, as an elicitation form, and how their
//! answer reads.

use rmcp::model::{ElicitRequestParams, ElicitationSchema};
use serde_json::{json, Value};

use crate::model::ToolCall;

/// The key of the one input request an asking call sends, and of its answer.
pub(super) const DECISION_KEY: &str = "decision";

/// The longest argument text the question shows: past it, the host's dialog would be a wall.
const SHOWN_ARGUMENTS: usize = 1_000;

/// What the person answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Answer {
    Allow,
    /// The text the client's model reads as the tool's error.
    Deny(String),
}

/// The elicitation form for `call`: a question naming the tool and its arguments, a choice of
/// allow or deny, and a reason.
pub(super) fn question(call: &ToolCall) -> Result<ElicitRequestParams, serde_json::Error> {
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
        },
        "required": ["decision"],
    }))?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message(call),
        requested_schema: schema,
    })
}

/// "The assistant wants to call `transfer` with {...}. Allow it?"
fn message(call: &ToolCall) -> String {
    let arguments = shown_arguments(&call.arguments);
    format!(
        "The assistant wants to call `{}` with {arguments}. Allow it?",
        call.name
    )
}

/// The arguments as compact JSON, cut at a character boundary past [`SHOWN_ARGUMENTS`] bytes.
fn shown_arguments(arguments: &str) -> String {
    let compact = serde_json::from_str::<Value>(arguments)
        .map(|value| value.to_string())
        .unwrap_or_else(|_| arguments.to_owned());
    if compact.len() <= SHOWN_ARGUMENTS {
        return compact;
    }
    let mut end = SHOWN_ARGUMENTS;
    while !compact.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &compact[..end], compact.len())
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
    match content.get("decision").and_then(Value::as_str) {
        Some("allow") => Ok(Answer::Allow),
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
        } = question(&call).unwrap()
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
    fn long_arguments_are_cut_where_a_character_ends() {
        let long = format!(r#"{{"text": "{}"}}"#, "é".repeat(800));
        let shown = shown_arguments(&long);
        assert!(shown.ends_with("(1611 bytes in all)"), "{shown}");
        assert!(shown.len() < 1_100);
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
