//! Reading a streamed Chat Completions answer: each event a chunk, each tool call assembled
//! from its deltas and handed out once complete.

use crate::model::http::{mid_stream_error, no_name, Assemble, Budget, Event, StreamedUsage};
use crate::model::openai::api::USAGE;
use crate::model::openai::convert::{self, AnswerToolCall, Chunk};
use crate::model::{ChatDelta, ModelError, ToolCall};

/// A tool call whose deltas are still arriving.
#[derive(Debug)]
struct PartialCall {
    index: usize,
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Builds the reply from chunks: text as it comes, each tool call once it is complete, that
/// is when the next call starts, when the choice finishes, or at `[DONE]`.
#[derive(Debug, Default)]
pub struct Assembler {
    current: Option<PartialCall>,
    /// Indexes of the calls handed out.
    completed: Vec<usize>,
    /// A `finish_reason` or `[DONE]` was read.
    finished: bool,
    /// Bytes of text and arguments read so far.
    budget: Budget,
    /// The tokens the chunks reported.
    usage: StreamedUsage,
}

impl Assemble for Assembler {
    /// Reads one event; `Ok(true)` at `[DONE]`.
    fn event(&mut self, event: &Event, out: &mut Vec<ChatDelta>) -> Result<bool, ModelError> {
        if event.kind.as_deref() == Some("error") {
            return Err(mid_stream_error(
                crate::model::http::error_message(event.data.as_bytes()).as_deref(),
            ));
        }
        let data = event.data.trim();
        if data == "[DONE]" {
            self.flush(out)?;
            self.finished = true;
            self.usage.report(USAGE, out);
            return Ok(true);
        }
        if data.is_empty() {
            return Ok(false);
        }
        let chunk: Chunk = convert::decode(data.as_bytes(), "a chunk of the streamed answer")?;
        if let Some(error) = chunk.error {
            return Err(mid_stream_error(
                crate::model::http::error_message(error.to_string().as_bytes()).as_deref(),
            ));
        }
        self.usage.read(chunk.usage.as_ref());
        // One reply is asked for: the first choice.
        for choice in chunk.choices.into_iter().filter(|choice| choice.index == 0) {
            if let Some(delta) = choice.delta {
                for text in [delta.content, delta.refusal].into_iter().flatten() {
                    if !text.is_empty() {
                        self.budget.spend(text.len())?;
                        out.push(ChatDelta::Text(text));
                    }
                }
                for call in delta.tool_calls.unwrap_or_default() {
                    self.tool_call(call, out)?;
                }
            }
            if choice.finish_reason.is_some() {
                self.flush(out)?;
                self.finished = true;
            }
        }
        Ok(false)
    }

    /// The stream ended without `[DONE]`: fine after a `finish_reason`, else the answer was
    /// cut off, and a call in progress is not handed out (its arguments may be cut too).
    fn end(&mut self, out: &mut Vec<ChatDelta>) -> Result<(), ModelError> {
        if self.finished {
            self.flush(out)?;
            self.usage.report(USAGE, out);
            return Ok(());
        }
        Err(ModelError::Unavailable(
            "the stream ended before the answer was complete".into(),
        ))
    }
}

impl Assembler {
    fn tool_call(
        &mut self,
        delta: AnswerToolCall,
        out: &mut Vec<ChatDelta>,
    ) -> Result<(), ModelError> {
        let id = delta.id.filter(|id| !id.is_empty());
        // Deltas continue the current call unless they name another index, or another id
        // (some servers send every call at index 0, told apart by their ids).
        let continues = self.current.as_ref().is_some_and(|current| {
            delta.index.is_none_or(|index| index == current.index)
                && match (&id, &current.id) {
                    (Some(new), Some(old)) => new == old,
                    _ => true,
                }
        });
        if !continues {
            self.flush(out)?;
            let index = delta.index.unwrap_or(self.completed.len());
            if id.is_none() && self.completed.contains(&index) {
                return Err(ModelError::Malformed(format!(
                    "the stream went back to tool call {index} after a later call began"
                )));
            }
            self.current = Some(PartialCall {
                index,
                id: None,
                name: String::new(),
                arguments: String::new(),
            });
        }
        let Some(current) = self.current.as_mut() else {
            return Ok(());
        };
        if id.is_some() {
            current.id = id;
        }
        let Some(function) = delta.function else {
            return Ok(());
        };
        let mut grown = 0;
        if let Some(name) = function.name.filter(|name| !name.is_empty()) {
            // Sent once by OpenAI; some servers repeat it in every delta.
            if current.name != name {
                grown += name.len();
                current.name.push_str(&name);
            }
        }
        if let Some(arguments) = function.arguments {
            let before = current.arguments.len();
            arguments.append_to(&mut current.arguments);
            grown += current.arguments.len() - before;
        }
        self.budget.spend(grown)
    }

    /// Hands out the call in progress, if any.
    fn flush(&mut self, out: &mut Vec<ChatDelta>) -> Result<(), ModelError> {
        let Some(call) = self.current.take() else {
            return Ok(());
        };
        if call.name.is_empty() {
            return Err(no_name(convert::CALL, call.index));
        }
        self.completed.push(call.index);
        out.push(ChatDelta::ToolCall(ToolCall {
            id: call.id,
            name: call.name,
            arguments: call.arguments,
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Usage;

    fn parse(pieces: &[&str]) -> (Vec<ChatDelta>, Result<(), ModelError>) {
        crate::model::http::parse_pieces::<Assembler>(pieces)
    }

    fn parse_bytewise(text: &str) -> (Vec<ChatDelta>, Result<(), ModelError>) {
        crate::model::http::parse_bytewise::<Assembler>(text)
    }

    fn call(id: Option<&str>, name: &str, arguments: &str) -> ChatDelta {
        ChatDelta::ToolCall(ToolCall {
            id: id.map(str::to_owned),
            name: name.to_owned(),
            arguments: arguments.to_owned(),
        })
    }

    fn text(text: &str) -> ChatDelta {
        ChatDelta::Text(text.to_owned())
    }

    /// A stream recorded from OpenAI (ids shortened): two parallel calls, arguments in pieces.
    const OPENAI_PARALLEL: &str = concat!(
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}],\"refusal\":null},\"logprobs\":null,\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"ci\"}}]},\"logprobs\":null,\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ty\\\": \\\"Lisbon\\\"}\"}}]},\"logprobs\":null,\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"logprobs\":null,\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"{\\\"city\\\": \\\"Oslo\\\"}\"}}]},\"logprobs\":null,\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );

    #[test]
    fn parallel_calls_are_assembled_from_their_deltas() {
        let expected = vec![
            call(Some("call_a"), "get_weather", r#"{"city": "Lisbon"}"#),
            call(Some("call_b"), "get_weather", r#"{"city": "Oslo"}"#),
        ];
        assert_eq!(parse(&[OPENAI_PARALLEL]), (expected.clone(), Ok(())));
        assert_eq!(parse_bytewise(OPENAI_PARALLEL), (expected, Ok(())));
    }

    /// A stream asked for with `stream_options.include_usage`, in OpenAI's documented shape:
    /// `usage` is `null` in every chunk but a last one, which has no choice.
    const OPENAI_WITH_USAGE: &str = concat!(
        "data: {\"id\":\"chatcmpl-2\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Sunny\"},\"finish_reason\":null}],\"usage\":null}\n\n",
        "data: {\"id\":\"chatcmpl-2\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n",
        "data: {\"id\":\"chatcmpl-2\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":19,\"completion_tokens\":10,\"total_tokens\":29,\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\n",
        "data: [DONE]\n\n",
    );

    #[test]
    fn the_usage_of_the_last_chunk_is_reported_once_when_the_answer_is_complete() {
        let expected = vec![text("Sunny"), ChatDelta::Usage(Usage::new(19, 10))];
        assert_eq!(parse(&[OPENAI_WITH_USAGE]), (expected.clone(), Ok(())));
        assert_eq!(
            parse_bytewise(OPENAI_WITH_USAGE),
            (expected.clone(), Ok(()))
        );
        // A server that ends the stream without `[DONE]` reports it too.
        let undone = OPENAI_WITH_USAGE.trim_end_matches("data: [DONE]\n\n");
        assert_eq!(parse(&[undone]), (expected, Ok(())));
        // A server that counts in every chunk: the last count is the request's.
        let counting = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":1}}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}\n\n",
            "data: [DONE]\n\n",
        );
        assert_eq!(
            parse(&[counting]),
            (vec![text("Hi"), ChatDelta::Usage(Usage::new(7, 2))], Ok(()))
        );
    }

    #[test]
    fn each_call_is_handed_out_as_soon_as_the_next_one_starts() {
        let events: Vec<&str> = OPENAI_PARALLEL.split_inclusive("\n\n").collect();
        let mut parser = crate::model::http::SseParser::<Assembler>::default();
        let mut out = Vec::new();
        for event in &events[..3] {
            parser.push(event.as_bytes(), &mut out).unwrap();
        }
        assert!(out.is_empty(), "call 0 may still grow");
        parser.push(events[3].as_bytes(), &mut out).unwrap();
        assert_eq!(
            out,
            [call(Some("call_a"), "get_weather", r#"{"city": "Lisbon"}"#)],
            "call 1 starting completes call 0"
        );
        parser.push(events[4].as_bytes(), &mut out).unwrap();
        assert_eq!(out.len(), 1);
        parser.push(events[5].as_bytes(), &mut out).unwrap();
        assert_eq!(out.len(), 2, "finish_reason completes the last call");
    }

    /// As fakellm 0.3.5 streams it: a role chunk, each call's id and name, then its arguments
    /// in four pieces.
    #[test]
    fn a_fakellm_stream_is_assembled() {
        let stream = concat!(
            "data: {\"id\": \"chatcmpl-x\", \"object\": \"chat.completion.chunk\", \"created\": 1, \"model\": \"m\", \"choices\": [{\"index\": 0, \"delta\": {\"role\": \"assistant\"}, \"finish_reason\": null}]}\n\n",
            "data: {\"id\": \"chatcmpl-x\", \"object\": \"chat.completion.chunk\", \"created\": 1, \"model\": \"m\", \"choices\": [{\"index\": 0, \"delta\": {\"tool_calls\": [{\"index\": 0, \"id\": \"call_1\", \"type\": \"function\", \"function\": {\"name\": \"add\", \"arguments\": \"\"}}]}, \"finish_reason\": null}]}\n\n",
            "data: {\"id\": \"chatcmpl-x\", \"object\": \"chat.completion.chunk\", \"created\": 1, \"model\": \"m\", \"choices\": [{\"index\": 0, \"delta\": {\"tool_calls\": [{\"index\": 0, \"function\": {\"arguments\": \"{\\\"a\\\"\"}}]}, \"finish_reason\": null}]}\n\n",
            "data: {\"id\": \"chatcmpl-x\", \"object\": \"chat.completion.chunk\", \"created\": 1, \"model\": \"m\", \"choices\": [{\"index\": 0, \"delta\": {\"tool_calls\": [{\"index\": 0, \"function\": {\"arguments\": \": 1, \"}}]}, \"finish_reason\": null}]}\n\n",
            "data: {\"id\": \"chatcmpl-x\", \"object\": \"chat.completion.chunk\", \"created\": 1, \"model\": \"m\", \"choices\": [{\"index\": 0, \"delta\": {\"tool_calls\": [{\"index\": 0, \"function\": {\"arguments\": \"\\\"b\\\": \"}}]}, \"finish_reason\": null}]}\n\n",
            "data: {\"id\": \"chatcmpl-x\", \"object\": \"chat.completion.chunk\", \"created\": 1, \"model\": \"m\", \"choices\": [{\"index\": 0, \"delta\": {\"tool_calls\": [{\"index\": 0, \"function\": {\"arguments\": \"2}\"}}]}, \"finish_reason\": null}]}\n\n",
            "data: {\"id\": \"chatcmpl-x\", \"object\": \"chat.completion.chunk\", \"created\": 1, \"model\": \"m\", \"choices\": [{\"index\": 0, \"delta\": {}, \"finish_reason\": \"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        assert_eq!(
            parse(&[stream]),
            (
                vec![call(Some("call_1"), "add", r#"{"a": 1, "b": 2}"#)],
                Ok(())
            )
        );
    }

    #[test]
    fn text_comes_as_it_arrives_and_calls_may_follow_it() {
        let stream = concat!(
            ": keep-alive\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me \"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"check.\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"now\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}\n\n",
            "data: [DONE]\n\n",
        );
        assert_eq!(
            parse(&[stream]),
            (
                vec![
                    text("Let me "),
                    text("check."),
                    call(Some("c"), "now", "{}"),
                    ChatDelta::Usage(Usage::new(5, 3)),
                ],
                Ok(())
            )
        );
    }

    /// As Ollama streams calls: each whole in one chunk, arguments sometimes as an object.
    #[test]
    fn whole_calls_in_one_chunk_and_arguments_as_objects() {
        let stream = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"call_x\",\"index\":0,\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}},{\"id\":\"call_y\",\"index\":1,\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":{\"zone\":\"CET\"}}}]},\"finish_reason\":null}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        assert_eq!(
            parse(&[stream]),
            (
                vec![
                    call(Some("call_x"), "get_weather", r#"{"city":"Paris"}"#),
                    call(Some("call_y"), "get_time", r#"{"zone":"CET"}"#),
                ],
                Ok(())
            )
        );
    }

    #[test]
    fn calls_without_index_are_told_apart_by_id_and_names_repeated_are_kept_once() {
        let stream = concat!(
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\":\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"1}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
        );
        assert_eq!(
            parse(&[stream]),
            (
                vec![
                    call(Some("a"), "f", r#"{"x":1}"#),
                    call(Some("b"), "g", "{}")
                ],
                Ok(())
            ),
            "a stream closed after finish_reason without [DONE] is complete"
        );
    }

    #[test]
    fn line_endings_comments_and_multi_line_data() {
        let stream = concat!(
            "event: message\r\n",
            "data: {\"choices\":[{\"index\":0,\r\n",
            "data: \"delta\":{\"content\":\"a\"}}]}\r\n\r\n",
            ":comment\r",
            "data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\r\r",
            "data: [DONE]",
        );
        let expected = (vec![text("a"), text("b")], Ok(()));
        assert_eq!(parse(&[stream]), expected);
        assert_eq!(parse_bytewise(stream), expected);
    }

    #[test]
    fn other_choices_than_the_first_are_ignored() {
        let stream = concat!(
            "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"other\"}},{\"index\":0,\"delta\":{\"content\":\"first\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        );
        assert_eq!(parse(&[stream]), (vec![text("first")], Ok(())));
    }

    #[test]
    fn a_cut_off_stream_is_unavailable_and_its_partial_call_is_not_handed_out() {
        let stream = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":\"}}]}}]}\n\n",
        );
        assert_eq!(
            parse(&[stream]),
            (
                vec![text("hi")],
                Err(ModelError::Unavailable(
                    "the stream ended before the answer was complete".into()
                ))
            )
        );
    }

    #[test]
    fn errors_reported_mid_stream_are_unavailable() {
        let stream = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n",
            "data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}\n\n",
        );
        assert_eq!(
            parse(&[stream]),
            (
                vec![text("hi")],
                Err(ModelError::Unavailable(
                    "the provider reported an error mid-stream: The server had an error".into()
                ))
            )
        );
        let event = "event: error\ndata: {\"message\": \"overloaded\"}\n\n";
        assert_eq!(
            parse(&[event]).1,
            Err(ModelError::Unavailable(
                "the provider reported an error mid-stream: overloaded".into()
            ))
        );
    }

    #[test]
    fn malformed_streams_are_classified() {
        let (_, result) = parse(&["data: {not json\n\n"]);
        assert!(
            matches!(&result, Err(ModelError::Malformed(m)) if m.starts_with("a chunk of the streamed answer")),
            "{result:?}"
        );
        let (_, result) = parse(&[
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
        ]);
        assert_eq!(result, Err(no_name(convert::CALL, 0)));
        let (_, result) = parse(&[concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"x\"}}]}}]}\n\n",
        )]);
        assert_eq!(
            result,
            Err(ModelError::Malformed(
                "the stream went back to tool call 0 after a later call began".into()
            ))
        );
    }

    #[test]
    fn nothing_after_done_is_read() {
        let stream = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n",
            "data: [DONE]\n\n",
            "data: {not json\n\n",
        );
        assert_eq!(parse(&[stream]), (vec![text("a")], Ok(())));
    }
}
