//! What the fuzz targets drive, built only for them (`--cfg fuzzing`) and the tests: each provider's answer,
//! whole or streamed, read as its model reads it, and a conversation written as its request.

use crate::model::http::{Provider, SseParser};
use crate::model::{AssistantMessage, ChatDelta, ChatOptions, ChatRequest, Message, ModelError};

/// Calls `$f::<P>($args)` for each provider whose feature is on.
macro_rules! each_provider {
    ($f:ident($($arg:expr),*)) => {{
        #[cfg(feature = "openai")]
        $f::<crate::model::openai::OpenAiCompatible>($($arg),*);
        #[cfg(feature = "anthropic")]
        $f::<crate::model::anthropic::Anthropic>($($arg),*);
        #[cfg(feature = "gemini")]
        $f::<crate::model::gemini::Gemini>($($arg),*);
    }};
}

/// `bytes` read as each provider's whole answer, and as a stream request's answer in JSON.
pub fn read_answers(bytes: &[u8]) -> Vec<Result<AssistantMessage, ModelError>> {
    fn read<P: Provider>(bytes: &[u8], out: &mut Vec<Result<AssistantMessage, ModelError>>) {
        out.push(P::reply(bytes).map(|response| response.message));
        out.push(P::unstreamed_reply(bytes).map(|response| response.message));
    }
    let mut out = Vec::new();
    each_provider!(read(bytes, &mut out));
    out
}

/// `bytes` read as each provider's streamed answer, arriving in two pieces split at `split`.
pub fn read_streams(bytes: &[u8], split: usize) -> Vec<Result<Vec<ChatDelta>, ModelError>> {
    fn read<P: Provider>(
        bytes: &[u8],
        split: usize,
        out: &mut Vec<Result<Vec<ChatDelta>, ModelError>>,
    ) {
        let (first, second) = bytes.split_at(split.min(bytes.len()));
        let mut parser = SseParser::<P::Assembler>::default();
        let mut deltas = Vec::new();
        let read = (|| {
            if !parser.push(first, &mut deltas)? && !parser.push(second, &mut deltas)? {
                parser.end(&mut deltas)?;
            }
            Ok(deltas)
        })();
        out.push(read);
    }
    let mut out = Vec::new();
    each_provider!(read(bytes, split, &mut out));
    out
}

/// The body each provider's model sends for `conversation`, as JSON.
pub fn requests(conversation: &[Message]) -> Vec<String> {
    fn write<P: Provider>(conversation: &[Message], out: &mut Vec<String>) {
        let options = ChatOptions::default();
        let request = ChatRequest {
            messages: conversation,
            tools: &[],
            options: &options,
        };
        let provider = P::default();
        let body = provider.body("fuzz-model", request, true);
        out.push(serde_json::to_string(&body).unwrap_or_default());
    }
    let mut out = Vec::new();
    each_provider!(write(conversation, &mut out));
    out
}

#[cfg(all(test, feature = "openai", feature = "anthropic", feature = "gemini"))]
mod tests {
    use super::*;

    /// Each seed of the `wire` fuzz target is an answer one provider reads, with a call in it,
    /// so that fuzzing starts from inputs that reach the readers' depths.
    #[test]
    fn the_fuzz_seeds_are_answers_a_provider_reads() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/corpus/wire");
        let mut seeds = 0;
        for entry in std::fs::read_dir(corpus).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("schema_") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let whole = read_answers(&bytes).into_iter().flatten();
            let streamed = read_streams(&bytes, 7).into_iter().flatten().map(|deltas| {
                let mut reply = AssistantMessage::default();
                for delta in deltas {
                    if let ChatDelta::ToolCall(call) = delta {
                        reply.tool_calls.push(call);
                    }
                }
                reply
            });
            let calls: Vec<_> = whole
                .chain(streamed)
                .flat_map(|reply| reply.tool_calls)
                .collect();
            assert!(
                calls.iter().any(|call| call.name == "get_weather"),
                "{name}: no provider reads a call in it"
            );
            seeds += 1;
        }
        assert_eq!(seeds, 7);
    }
}
