//! Reading a streamed `generateContent` answer: each event a whole `GenerateContentResponse`
//! chunk, its text handed out as it comes and each function call at once (Gemini never splits
//! a call across chunks).

use crate::model::gemini::api::USAGE;
use crate::model::gemini::convert::{self, GenerateContentResponse};
use crate::model::http::{decode, mid_stream_error, Assemble, Budget, Event, StreamedUsage};
use crate::model::{ChatDelta, ChatResponse, ModelError};

/// Builds the reply from chunks.
#[derive(Debug, Default)]
pub struct Assembler {
    /// Calls handed out so far.
    calls: usize,
    /// Text or a call was handed out.
    produced: bool,
    /// A finish reason was read.
    finished: bool,
    /// Bytes of text and arguments read so far.
    budget: Budget,
    /// The tokens the chunks reported (each chunk's count replaces the last's).
    usage: StreamedUsage,
}

impl Assemble for Assembler {
    /// Reads one event. Gemini's stream has no end marker: it ends after the chunk with the
    /// finish reason, so this never says the answer is complete.
    fn event(&mut self, event: &Event, out: &mut Vec<ChatDelta>) -> Result<bool, ModelError> {
        if event.kind.as_deref() == Some("error") {
            return Err(mid_stream_error(
                convert::error_message(event.data.as_bytes()).as_deref(),
            ));
        }
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(false);
        }
        let chunk = decode(data.as_bytes(), "a chunk of the streamed answer")?;
        self.chunk(chunk, out)?;
        Ok(false)
    }

    /// The stream ended: fine after a finish reason (the usage last reported is the answer's),
    /// else the answer was cut off.
    fn end(&mut self, out: &mut Vec<ChatDelta>) -> Result<(), ModelError> {
        if self.finished {
            self.usage.report(USAGE, out);
            return Ok(());
        }
        Err(ModelError::Unavailable(
            "the stream ended before the answer was complete".into(),
        ))
    }
}

impl Assembler {
    /// Reads one chunk: an error in it, a blocked prompt, then the first candidate's parts
    /// and finish reason.
    fn chunk(
        &mut self,
        chunk: GenerateContentResponse,
        out: &mut Vec<ChatDelta>,
    ) -> Result<(), ModelError> {
        if let Some(error) = chunk.error {
            return Err(mid_stream_error(error.text()));
        }
        self.usage.read(chunk.usage_metadata.as_ref());
        // One reply is asked for: the first candidate.
        let Some(candidate) = chunk
            .candidates
            .into_iter()
            .find(|candidate| candidate.index.unwrap_or(0) == 0)
        else {
            // A chunk of usage alone passes; a blocked prompt has no candidate at all.
            return match convert::blocked(chunk.prompt_feedback.as_ref()) {
                Some(refused) => Err(refused),
                None => Ok(()),
            };
        };
        for part in candidate
            .content
            .map(|content| content.parts)
            .unwrap_or_default()
        {
            match convert::delta(part, self.calls)? {
                Some(ChatDelta::Text(text)) => {
                    self.budget.spend(text.len())?;
                    self.produced = true;
                    out.push(ChatDelta::Text(text));
                }
                Some(ChatDelta::ToolCall(call)) => {
                    self.budget.spend(call.name.len() + call.arguments.len())?;
                    self.calls += 1;
                    self.produced = true;
                    out.push(ChatDelta::ToolCall(call));
                }
                Some(ChatDelta::Usage(_)) | None => {}
            }
        }
        if candidate.finish_reason.is_some() {
            convert::finished(
                candidate.finish_reason.as_deref(),
                candidate.finish_message.as_deref(),
                self.produced,
            )?;
            self.finished = true;
        }
        Ok(())
    }
}

/// The reply of a stream request answered with JSON instead of events: the chunks, as a list
/// (Gemini's answer without `alt=sse`) or one, read as the stream's events would be.
pub(super) fn whole(bytes: &[u8]) -> Result<ChatResponse, ModelError> {
    let listed = bytes
        .iter()
        .find(|byte| !byte.is_ascii_whitespace())
        .is_some_and(|byte| *byte == b'[');
    let chunks: Vec<GenerateContentResponse> = if listed {
        decode(bytes, "the answer")?
    } else {
        vec![decode(bytes, "the answer")?]
    };
    let mut assembler = Assembler::default();
    let mut deltas = Vec::new();
    for chunk in chunks {
        assembler.chunk(chunk, &mut deltas)?;
    }
    assembler.end(&mut deltas)?;
    let mut reply = ChatResponse::default();
    for delta in deltas {
        match delta {
            ChatDelta::Text(text) => reply
                .message
                .text
                .get_or_insert_with(String::new)
                .push_str(&text),
            ChatDelta::ToolCall(call) => reply.message.tool_calls.push(call),
            ChatDelta::Usage(usage) => reply.usage = Some(usage),
        }
    }
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AssistantMessage, Usage};

    use crate::model::ToolCall;

    fn parse(pieces: &[&str]) -> (Vec<ChatDelta>, Result<(), ModelError>) {
        crate::model::http::parse_pieces::<Assembler>(pieces)
    }

    fn text(text: &str) -> ChatDelta {
        ChatDelta::Text(text.to_owned())
    }

    fn call(name: &str, arguments: &str) -> ChatDelta {
        ChatDelta::ToolCall(ToolCall::without_id(name, arguments))
    }

    /// As Gemini streams with `alt=sse` (shortened): text in pieces, two calls each whole in a
    /// chunk, the finish reason and usage on the last; events end with CRLF CRLF.
    const GEMINI_STREAM: &str = concat!(
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Checking\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 9},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n",
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" both.\"}],\"role\": \"model\"},\"index\": 0}],\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n",
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"get_weather\",\"args\": {\"city\": \"Lisbon\"}},\"thoughtSignature\": \"c2ln\"}],\"role\": \"model\"},\"index\": 0}],\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n",
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"get_weather\",\"args\": {\"city\": \"Oslo\"}}}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 9,\"candidatesTokenCount\": 12,\"totalTokenCount\": 21},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n",
    );

    #[test]
    fn text_comes_as_it_arrives_and_each_call_at_once() {
        let expected = vec![
            text("Checking"),
            text(" both."),
            call("get_weather", r#"{"city":"Lisbon"}"#),
            call("get_weather", r#"{"city":"Oslo"}"#),
            // The last chunk's count, once the stream ends.
            ChatDelta::Usage(Usage::new(9, 12)),
        ];
        assert_eq!(parse(&[GEMINI_STREAM]), (expected.clone(), Ok(())));
        let bytewise: Vec<String> = GEMINI_STREAM.chars().map(String::from).collect();
        let pieces: Vec<&str> = bytewise.iter().map(String::as_str).collect();
        assert_eq!(parse(&pieces), (expected, Ok(())));
    }

    #[test]
    fn a_call_is_handed_out_with_its_own_chunk() {
        let events: Vec<&str> = GEMINI_STREAM.split_inclusive("\r\n\r\n").collect();
        let mut parser = crate::model::http::SseParser::<Assembler>::default();
        let mut out = Vec::new();
        for event in &events[..3] {
            parser.push(event.as_bytes(), &mut out).unwrap();
        }
        assert_eq!(
            out.last(),
            Some(&call("get_weather", r#"{"city":"Lisbon"}"#)),
            "not kept until the stream ends"
        );
    }

    #[test]
    fn a_stream_without_a_finish_reason_was_cut_off() {
        let events: Vec<&str> = GEMINI_STREAM.split_inclusive("\r\n\r\n").collect();
        assert_eq!(
            parse(&events[..3]),
            (
                vec![
                    text("Checking"),
                    text(" both."),
                    call("get_weather", r#"{"city":"Lisbon"}"#)
                ],
                Err(ModelError::Unavailable(
                    "the stream ended before the answer was complete".into()
                ))
            )
        );
    }

    #[test]
    fn an_error_mid_stream_and_a_withheld_reply_are_errors() {
        let stream = concat!(
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"hi\"}]}}]}\n\n",
            "data: {\"error\": {\"code\": 503, \"message\": \"The model is overloaded.\", \"status\": \"UNAVAILABLE\"}}\n\n",
        );
        assert_eq!(
            parse(&[stream]),
            (
                vec![text("hi")],
                Err(ModelError::Unavailable(
                    "the provider reported an error mid-stream: The model is overloaded.".into()
                ))
            )
        );
        let event =
            "event: error\ndata: {\"error\": {\"code\": 500, \"status\": \"INTERNAL\"}}\n\n";
        assert_eq!(
            parse(&[event]).1,
            Err(ModelError::Unavailable(
                "the provider reported an error mid-stream: INTERNAL".into()
            ))
        );
        let withheld = concat!(
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Once upon\"}]}}]}\n\n",
            "data: {\"candidates\": [{\"finishReason\": \"RECITATION\", \"index\": 0}]}\n\n",
        );
        assert_eq!(
            parse(&[withheld]),
            (
                vec![text("Once upon")],
                Err(ModelError::Refused {
                    status: 0,
                    message: "Gemini withheld the reply (finishReason RECITATION)".into()
                })
            )
        );
        let blocked = "data: {\"promptFeedback\": {\"blockReason\": \"SAFETY\"}}\n\n";
        assert!(matches!(
            parse(&[blocked]).1,
            Err(ModelError::Refused { status: 0, message }) if message.contains("blockReason SAFETY")
        ));
        let empty_at_limit = "data: {\"candidates\": [{\"content\": {\"role\": \"model\"}, \"finishReason\": \"MAX_TOKENS\"}]}\n\n";
        assert!(matches!(
            parse(&[empty_at_limit]).1,
            Err(ModelError::Refused { status: 0, message }) if message.contains("MAX_TOKENS")
        ));
    }

    #[test]
    fn malformed_chunks_and_nameless_calls_are_malformed() {
        let (_, result) = parse(&["data: {not json\n\n"]);
        assert!(
            matches!(&result, Err(ModelError::Malformed(m)) if m.starts_with("a chunk of the streamed answer")),
            "{result:?}"
        );
        let nameless = concat!(
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"a\"}}]}}]}\n\n",
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"\"}}]}}]}\n\n",
        );
        assert_eq!(
            parse(&[nameless]),
            (
                vec![call("a", "{}")],
                Err(crate::model::http::no_name(convert::CALL, 1))
            )
        );
    }

    #[test]
    fn usage_chunks_thoughts_and_comments_add_nothing() {
        let stream = concat!(
            ": keep-alive\n\n",
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"hmm\", \"thought\": true}]}}]}\n\n",
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\"}]}, \"finishReason\": \"STOP\"}]}\n\n",
            "data: {\"usageMetadata\": {\"totalTokenCount\": 3}}\n\n",
        );
        assert_eq!(parse(&[stream]), (vec![], Ok(())));
    }

    #[test]
    fn a_json_answer_to_a_stream_request_is_read_whole() {
        let listed = r#"[
            {"candidates": [{"content": {"parts": [{"text": "Sunny "}]}}]},
            {"candidates": [{"content": {"parts": [{"text": "today."}, {"functionCall": {"name": "f", "args": {}}}]},
                             "finishReason": "STOP"}]}
        ]"#;
        let mut expected = AssistantMessage::text("Sunny today.");
        expected.tool_calls.push(ToolCall::without_id("f", "{}"));
        assert_eq!(whole(listed.as_bytes()), Ok(ChatResponse::new(expected)));
        assert_eq!(
            whole(br#"{"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}],
                       "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 1, "thoughtsTokenCount": 2}}"#),
            Ok(ChatResponse::new(AssistantMessage::text("hi")).with_usage(Usage::new(4, 3)))
        );
        assert_eq!(
            whole(br#"[{"candidates": [{"content": {"parts": [{"text": "hi"}]}}]}]"#),
            Err(ModelError::Unavailable(
                "the stream ended before the answer was complete".into()
            ))
        );
    }
}
