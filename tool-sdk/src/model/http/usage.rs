//! The tokens a provider reports for a request, read from its answer's usage object: leniently,
//! so that a usage the crate cannot read never costs the reply. A streamed answer reports its
//! usage in pieces (at its start, in its last chunks, or in every chunk): the counts are kept as
//! they come, each member's largest count winning, and handed out once when the answer is
//! complete.

use serde_json::{Map, Value};

use crate::model::{ChatDelta, Usage};

/// Where a provider's usage object counts the tokens read and those written: the members
/// summed for each.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UsageFields {
    /// Members counting tokens read (the prompt, and any cache the provider counts apart).
    pub(crate) input: &'static [&'static str],
    /// Members counting tokens written (the reply, and any reasoning counted apart).
    pub(crate) output: &'static [&'static str],
}

/// The usage in `value` (a provider's usage object): the sum of the `input` members for the
/// tokens read, of the `output` members for those written. `None` when it has none of them.
pub(crate) fn counted(value: Option<&Value>, fields: UsageFields) -> Option<Usage> {
    let value = value?;
    let sum = |names: &[&str]| -> Option<u64> {
        names
            .iter()
            .filter_map(|name| value.get(name).and_then(Value::as_u64))
            .reduce(u64::saturating_add)
    };
    let (read, written) = (sum(fields.input), sum(fields.output));
    (read.is_some() || written.is_some())
        .then(|| Usage::new(read.unwrap_or(0), written.unwrap_or(0)))
}

/// The usage a streamed answer reported so far. Providers report counts that grow (Anthropic's
/// `message_delta`, OpenAI servers that count in every chunk, Gemini's chunks), never pieces to
/// add, so a member read again is kept at its largest: a later `0` (some Messages-compatible
/// servers send `input_tokens: 0` in `message_delta`) takes nothing away.
#[derive(Debug, Default)]
pub(crate) struct StreamedUsage {
    largest: Map<String, Value>,
}

impl StreamedUsage {
    /// Keeps the counts of `value`, a usage object of the stream (anything that is not a count
    /// is passed over).
    pub(crate) fn read(&mut self, value: Option<&Value>) {
        let Some(Value::Object(members)) = value else {
            return;
        };
        for (name, count) in members {
            let Some(count) = count.as_u64() else {
                continue;
            };
            let kept = self.largest.get(name).and_then(Value::as_u64);
            if kept.is_none_or(|kept| count > kept) {
                self.largest.insert(name.clone(), Value::from(count));
            }
        }
    }

    /// The answer is complete: its usage, once, for `out`. Nothing when none was reported.
    pub(crate) fn report(&mut self, fields: UsageFields, out: &mut Vec<ChatDelta>) {
        let members = Value::Object(std::mem::take(&mut self.largest));
        if let Some(usage) = counted(Some(&members), fields) {
            out.push(ChatDelta::Usage(usage));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn members_are_summed_and_what_is_unread_is_none() {
        let usage = json!({"input_tokens": 10, "cache_read_input_tokens": 5, "output_tokens": 3});
        let fields = UsageFields {
            input: &[
                "input_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
            ],
            output: &["output_tokens"],
        };
        assert_eq!(counted(Some(&usage), fields), Some(Usage::new(15, 3)));
        let odd = json!({"input_tokens": "ten"});
        assert_eq!(counted(Some(&odd), fields), None);
        assert_eq!(counted(None, fields), None);
    }

    #[test]
    fn a_stream_reports_each_members_largest_count_once() {
        let fields = UsageFields {
            input: &["input_tokens"],
            output: &["output_tokens"],
        };
        let mut streamed = StreamedUsage::default();
        streamed.read(Some(&json!({"input_tokens": 25, "output_tokens": 1})));
        streamed.read(Some(&json!("not an object")));
        streamed.read(None);
        // A later zero, or something that is no count, takes nothing away.
        streamed.read(Some(&json!({"input_tokens": 0, "output_tokens": 15})));
        streamed.read(Some(&json!({"output_tokens": "n/a"})));
        let mut out = Vec::new();
        streamed.report(fields, &mut out);
        assert_eq!(out, [ChatDelta::Usage(Usage::new(25, 15))]);
        // Handed out once; a stream that reported nothing reports nothing.
        streamed.report(fields, &mut out);
        assert_eq!(out.len(), 1);
    }
}

/// Each provider's whole answer, as its model reads it: the usage it reports.
#[cfg(test)]
mod providers {
    use crate::model::http::sealed::ProviderApi;
    use crate::model::Usage;

    #[cfg(feature = "openai")]
    #[test]
    fn openai_reports_prompt_and_completion_tokens() {
        let answer = br#"{"id": "c1", "object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": "Hi."}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}}"#;
        let response = crate::model::openai::OpenAiCompatible::reply(answer).unwrap();
        assert_eq!(response.message.text.as_deref(), Some("Hi."));
        assert_eq!(response.usage, Some(Usage::new(12, 3)));
        // A usage that cannot be read costs nothing of the reply.
        let odd = br#"{"choices": [{"index": 0, "message": {"content": "Hi."}}], "usage": "n/a"}"#;
        let response = crate::model::openai::OpenAiCompatible::reply(odd).unwrap();
        assert_eq!(
            (response.message.text.as_deref(), response.usage),
            (Some("Hi."), None)
        );
    }

    #[cfg(feature = "anthropic")]
    #[test]
    fn anthropic_reports_input_with_the_cache_and_output_tokens() {
        let answer = br#"{"id": "msg_1", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "Hi."}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 4,
                      "cache_read_input_tokens": 6, "output_tokens": 2}}"#;
        let response = crate::model::anthropic::Anthropic::reply(answer).unwrap();
        assert_eq!(response.usage, Some(Usage::new(20, 2)));
    }

    #[cfg(feature = "gemini")]
    #[test]
    fn gemini_reports_prompt_candidates_and_thoughts() {
        let answer = br#"{"candidates": [{"content": {"parts": [{"text": "Hi."}], "role": "model"},
            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 3,
                              "thoughtsTokenCount": 5, "totalTokenCount": 17}}"#;
        let response = crate::model::gemini::Gemini::reply(answer).unwrap();
        assert_eq!(response.usage, Some(Usage::new(9, 8)));
    }
}
