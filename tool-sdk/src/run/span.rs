//! Each call's `execute_tool` span: named and attributed as OpenTelemetry's GenAI conventions
//! say, with what the gate made of the call, and the call's arguments and result only when the
//! application asks for them ([`LoopOptions::capture_tool_content`]).
//!
//! Everything a call's span is and records is here: the executor only opens it where a call is
//! handed on as the gate resolved it, and this file records how the call ended.
//!
//! [`LoopOptions::capture_tool_content`]: crate::run::LoopOptions::capture_tool_content

use std::future::Future;
use std::sync::Arc;

use futures_util::FutureExt as _;
use tracing::field::Empty;
use tracing::{Instrument as _, Span};

use crate::define::ToolErrorKind;
use crate::gate::{CallResult, Resolution, ToolCallDecisions};
use crate::model::ToolCall;
use crate::store::PausedTurn;

/// A call as the gate hands it on: how it is to run, and, for its span, whether it waited for
/// a person's decision and who decided.
#[derive(Debug, Clone)]
pub(crate) struct Gated {
    /// How the call is to run.
    pub(crate) resolution: Resolution,
    /// Whether the call itself waited for a decision.
    asked: bool,
    /// Whether its reply was decided (every call of a decided reply has a decision).
    decided: bool,
    /// Who decided, when the decisions say ([`ToolCallDecisions::decider`]).
    decider: Option<Arc<str>>,
}

impl Gated {
    /// A call of a reply no one was asked about: it runs.
    pub(crate) const UNASKED: Gated = Gated::undecided(Resolution::Run);

    /// A call of a reply no one was asked about, resolved so (it runs, or its tool was not
    /// offered).
    pub(crate) const fn undecided(resolution: Resolution) -> Gated {
        Gated {
            resolution,
            asked: false,
            decided: false,
            decider: None,
        }
    }

    /// A call that needed a decision, allowed by `decider`.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn allowed_by(decider: &str) -> Gated {
        Gated {
            resolution: Resolution::Run,
            asked: true,
            decided: true,
            decider: Some(Arc::from(decider)),
        }
    }

    /// A call a person allowed (`decider` says who) to run with `arguments` in place of the
    /// model's.
    #[cfg(feature = "mcp")]
    pub(crate) fn allowed_edited_by(decider: &str, arguments: String) -> Gated {
        Gated {
            resolution: Resolution::RunEdited(arguments),
            ..Gated::allowed_by(decider)
        }
    }

    /// The calls of `paused`, in reply order, as `decisions` resolved them (`resolutions`).
    pub(crate) fn decided(
        paused: &PausedTurn,
        resolutions: Vec<Resolution>,
        decisions: &ToolCallDecisions,
    ) -> Vec<Gated> {
        let decider: Option<Arc<str>> = decisions.decider().map(Arc::from);
        paused
            .calls()
            .zip(resolutions)
            .map(|(pending, resolution)| Gated {
                resolution,
                asked: pending.awaiting,
                decided: true,
                decider: decider.clone(),
            })
            .collect()
    }

    /// The decision, as the span names it: `None` when no decision was made.
    fn decision(&self) -> Option<&'static str> {
        self.decided.then_some(match self.resolution {
            Resolution::Run => "allowed",
            Resolution::RunEdited(_) => "allowed_edited",
            Resolution::Denied(_) => "denied",
            Resolution::NotOffered => "not_offered",
        })
    }
}

/// A call's `execute_tool` span, open; whether the call's arguments and result go on it.
#[derive(Debug)]
pub(crate) struct CallSpan {
    span: Span,
    content: bool,
}

impl CallSpan {
    /// Opens the span of `call` (of a tool `description` gives, when it is known), as the gate
    /// handed it on (`gated`). `content`: whether the call's arguments and result go on the span.
    ///
    /// The fields are computed only when a subscriber wants the span: with none, a call pays
    /// for a disabled span and nothing else.
    pub(crate) fn open<'d>(
        call: &ToolCall,
        description: impl FnOnce() -> Option<&'d str>,
        gated: &Gated,
        content: bool,
    ) -> Self {
        let span = tracing::info_span!(
            "gen_ai.execute_tool",
            "otel.name" = %format_args!("execute_tool {}", call.name),
            "otel.kind" = "internal",
            "otel.status_code" = Empty,
            "gen_ai.operation.name" = "execute_tool",
            "gen_ai.tool.name" = %call.name,
            "gen_ai.tool.call.id" = call.id.as_deref(),
            "gen_ai.tool.type" = "function",
            "gen_ai.tool.description" = description(),
            "gen_ai.tool.call.arguments" = content.then_some(call.arguments.as_str()),
            "gen_ai.tool.call.result" = Empty,
            "error.type" = Empty,
            "tool_sdk.gate.asked" = gated.asked,
            "tool_sdk.gate.decision" = gated.decision(),
            "tool_sdk.gate.decider" = gated.decider.as_deref(),
        );
        Self { span, content }
    }

    /// Runs `run`, the call as resolved, inside the span, and records on it how the call ended.
    pub(crate) fn around<F>(self, run: F) -> impl Future<Output = CallResult>
    where
        F: Future<Output = CallResult>,
    {
        let Self { span, content } = self;
        // Recorded as the call ends, while its span is entered: the current span is the call's,
        // and the call's future keeps no second handle to it.
        run.inspect(move |result| record(&Span::current(), result, content))
            .instrument(span)
    }
}

/// Records how a call ended: its result when `content` says so, the class of its error, or that
/// the run was cancelled before it started. A denied call, or one whose tool was not offered,
/// did not fail: the gate's attributes say what became of it.
fn record(span: &Span, result: &CallResult, content: bool) {
    // With the call's span disabled, the current span is another, which this must not touch.
    let ours = span.metadata().is_some_and(|span| {
        span.name() == "gen_ai.execute_tool" && span.target() == module_path!()
    });
    if !ours {
        return;
    }
    let error = match (result.ran(), result) {
        (Some(Ok(output)), _) => {
            if content {
                span.record("gen_ai.tool.call.result", output.content());
            }
            return;
        }
        (Some(Err(error)), _) => error_type(error.kind()),
        (None, CallResult::NotStarted) => "cancelled",
        _ => return,
    };
    span.record("error.type", error);
    span.record("otel.status_code", "error");
}

/// The `error.type` of a tool error: its kind, in snake case (low cardinality, as the
/// conventions ask).
fn error_type(kind: ToolErrorKind) -> &'static str {
    match kind {
        ToolErrorKind::UnknownTool => "unknown_tool",
        ToolErrorKind::InvalidArguments => "invalid_arguments",
        ToolErrorKind::MalformedArguments => "malformed_arguments",
        ToolErrorKind::ArgumentsNotObject => "arguments_not_object",
        ToolErrorKind::ArgumentsTooLarge => "arguments_too_large",
        ToolErrorKind::ArgumentsTooDeep => "arguments_too_deep",
        ToolErrorKind::ExecutionFailed => "execution_failed",
        ToolErrorKind::Panicked => "panicked",
        ToolErrorKind::TimedOut => "timed_out",
        ToolErrorKind::MissingContext => "missing_context",
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    use super::*;
    use crate::define::ToolError;

    /// Wants every span but the loop's call spans, and counts the fields recorded after a
    /// span's creation.
    #[derive(Clone, Default)]
    struct Recorded(Arc<Mutex<usize>>);

    impl Subscriber for Recorded {
        fn enabled(&self, metadata: &Metadata<'_>) -> bool {
            metadata.name() != "gen_ai.execute_tool"
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, values: &Record<'_>) {
            *self.0.lock().unwrap() += values.len();
        }
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    #[test]
    fn a_call_whose_span_is_off_touches_no_other_span() {
        let recorded = Recorded::default();
        tracing::subscriber::with_default(recorded.clone(), || {
            // With the call's span off, the current span as the call ends is the
            // application's own, with fields of the same names.
            let theirs =
                tracing::info_span!("request", "error.type" = Empty, "otel.status_code" = Empty);
            let failed = CallResult::Ran(Err(ToolError::failed("pay", "declined")));
            record(&theirs, &failed, true);
        });
        assert_eq!(*recorded.0.lock().unwrap(), 0);
    }
}
