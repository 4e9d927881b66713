//! The text form of a [`ScriptedModel`]'s replies: a script a person reads as a conversation.

use crate::model::{AssistantMessage, ModelError, ScriptedModel, ToolCall};

impl ScriptedModel {
    /// A model answering with the replies written in `script`, one line each (blank lines
    /// are skipped):
    ///
    /// - a line of calls is a tool name, a space and a JSON object of arguments
    ///   (`book {"city": "Lisbon"}`), or several of them in a row, for a reply that makes
    ///   several calls (`weather {"city": "Lisbon"} weather {"city": "Porto"}`);
    /// - any other line is a reply of text, the model's answer.
    ///
    /// Calls get the ids `call_1`, `call_2`, … in script order.
    ///
    /// # Errors
    ///
    /// [`ModelError::InvalidScript`], naming the line, when a line starts like a call (a name,
    /// then `{`) but does not go on as calls, or when the script has no reply.
    ///
    /// # Examples
    ///
    /// ```
    /// use tool_sdk::ScriptedModel;
    ///
    /// let model = ScriptedModel::from_script(r#"
    ///     get_weather {"city": "Lisbon"} get_weather {"city": "Porto"}
    ///     Lisbon is sunny, Porto cloudy.
    /// "#)?;
    /// # Ok::<(), tool_sdk::model::ModelError>(())
    /// ```
    pub fn from_script(script: &str) -> Result<Self, ModelError> {
        Ok(Self::new(parse(script)?))
    }
}

fn parse(script: &str) -> Result<Vec<AssistantMessage>, ModelError> {
    let mut replies = Vec::new();
    let mut calls = 0;
    for (index, line) in script.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let invalid = |reason| ModelError::InvalidScript {
            line: index + 1,
            reason,
        };
        if starts_a_call(line).is_none() {
            replies.push(AssistantMessage::text(line));
            continue;
        }
        let mut tool_calls = Vec::new();
        let mut rest = line;
        while !rest.is_empty() {
            let (name, arguments) = starts_a_call(rest).ok_or_else(|| {
                invalid(format!(
                    "`{rest}` follows a call; expected another `name {{…}}`"
                ))
            })?;
            let mut objects = serde_json::Deserializer::from_str(arguments)
                .into_iter::<serde_json::Map<String, serde_json::Value>>();
            if let Some(Err(error)) = objects.next() {
                return Err(invalid(format!(
                    "the arguments of `{name}` are not a JSON object: {error}"
                )));
            }
            let end = objects.byte_offset();
            calls += 1;
            tool_calls.push(ToolCall::new(
                format!("call_{calls}"),
                name,
                &arguments[..end],
            ));
            rest = arguments[end..].trim_start();
        }
        replies.push(AssistantMessage::with_tool_calls(tool_calls));
    }
    if replies.is_empty() {
        return Err(ModelError::InvalidScript {
            line: 0,
            reason: "the script has no reply".to_owned(),
        });
    }
    Ok(replies)
}

/// The tool name of a call at the start of `text`, and the text from its arguments' `{` on;
/// `None` when `text` does not start like a call.
fn starts_a_call(text: &str) -> Option<(&str, &str)> {
    let (name, rest) = text.split_once(char::is_whitespace)?;
    let arguments = rest.trim_start();
    let is_name = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    (is_name && arguments.starts_with('{')).then_some((name, arguments))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(reply: &AssistantMessage) -> Vec<(&str, &str, &str)> {
        reply
            .tool_calls
            .iter()
            .map(|c| {
                (
                    c.id.as_deref().unwrap_or_default(),
                    c.name.as_str(),
                    c.arguments.as_str(),
                )
            })
            .collect()
    }

    #[test]
    fn each_line_is_a_reply_of_calls_or_of_text() {
        let replies = parse(
            "\n  book {\"city\": \"Lisbon\"}\n\n  pay {}  pay {\"x\": {\"y\": [1, \"}\"]}}\n  Done: booked and paid.\n",
        )
        .unwrap();
        assert_eq!(replies.len(), 3);
        assert_eq!(
            calls(&replies[0]),
            [("call_1", "book", "{\"city\": \"Lisbon\"}")]
        );
        assert_eq!(
            calls(&replies[1]),
            [
                ("call_2", "pay", "{}"),
                ("call_3", "pay", "{\"x\": {\"y\": [1, \"}\"]}}")
            ]
        );
        assert_eq!(replies[2].text.as_deref(), Some("Done: booked and paid."));
        assert!(replies[2].tool_calls.is_empty());
    }

    #[test]
    fn text_that_does_not_start_like_a_call_stays_text() {
        for line in [
            "Hello there",
            "It costs {about} 5 €.",
            "a.b {\"x\": 1}",
            "{}",
            "pay [1]",
        ] {
            let replies = parse(line).unwrap();
            assert_eq!(replies[0].text.as_deref(), Some(line), "{line}");
            assert!(replies[0].tool_calls.is_empty(), "{line}");
        }
    }

    #[test]
    fn a_line_that_starts_like_a_call_must_be_calls() {
        for (script, says) in [
            ("Hi\n\npay {\"amount\": }", "`pay`"),
            ("Hi\npay {} and more", "`and more` follows a call"),
            ("pay {}}", "`}` follows a call"),
        ] {
            let error = parse(script).unwrap_err();
            let line = script.lines().count();
            assert!(
                matches!(&error, ModelError::InvalidScript { line: l, reason } if *l == line && reason.contains(says)),
                "{script:?}: {error:?}"
            );
        }
        assert!(matches!(
            parse("   \n\n"),
            Err(ModelError::InvalidScript { line: 0, .. })
        ));
    }
}
