//! A run shown at a terminal as it goes, and a person there asked about the calls that wait.
//!
//! Everything a model, a tool or a user wrote reaches the terminal through
//! [`Visible`]: an escape sequence or a bidirectional control in it prints as a marker and can
//! neither rewrite nor hide the question a person answers.

use std::io::{IsTerminal as _, Write};
use std::sync::Mutex;

use tokio::io::{AsyncBufRead, AsyncBufReadExt as _};

use crate::define::{ProgressUpdate, ToolResult};
use crate::gate::Visible;
use crate::model::{AssistantMessage, Message, ToolCall};
use crate::run::approve::{Approver, ApproverFuture};
use crate::run::observe::Observer;
use crate::run::{ErrorAction, ErrorPolicy, LoopOutcome, LoopStatus};
use crate::store::PausedTurn;

/// The rule that decides when no person can be asked: stdin is not a terminal.
pub const UNATTENDED_RULE: &str = "deny what no one can approve";

/// Writes each step of a run, and asks about each waiting call: at the terminal when stdin is
/// one, else by [`UNATTENDED_RULE`], saying so.
pub(crate) struct Terminal {
    output: Mutex<Box<dyn Write + Send>>,
    input: tokio::sync::Mutex<Box<dyn AsyncBufRead + Unpin + Send>>,
    attended: bool,
    /// The loop's error policy, to say what a failure leads to.
    errors: Mutex<ErrorPolicy>,
}

impl Terminal {
    /// The process's own terminal: stdout, and stdin when it is a terminal.
    pub(crate) fn stdio() -> Self {
        Self::new(
            tokio::io::BufReader::new(tokio::io::stdin()),
            std::io::stdout(),
            std::io::stdin().is_terminal(),
        )
    }

    pub(crate) fn new(
        input: impl AsyncBufRead + Unpin + Send + 'static,
        output: impl Write + Send + 'static,
        attended: bool,
    ) -> Self {
        Self {
            output: Mutex::new(Box::new(output)),
            input: tokio::sync::Mutex::new(Box::new(input)),
            attended,
            errors: Mutex::default(),
        }
    }

    /// Says what each failure leads to as `errors` has it (the loop's error policy).
    pub(crate) fn follow(&self, errors: &ErrorPolicy) {
        *self
            .errors
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = errors.clone();
    }

    fn line(&self, text: std::fmt::Arguments<'_>) {
        self.write(format_args!("{text}\n"));
    }

    fn write(&self, text: std::fmt::Arguments<'_>) {
        let mut output = self
            .output
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // A terminal that cannot be written to shows nothing; the run goes on.
        let _ = output.write_fmt(text);
        let _ = output.flush();
    }

    /// What the person answered about `call`: an allowance (with their arguments, when they
    /// gave some), or the denial the model reads.
    async fn ask(&self, call: &ToolCall) -> Result<Option<String>, String> {
        let (name, arguments) = (Visible::line(&call.name), Visible::line(&call.arguments));
        let question = format!(
            "Allow {name} {arguments}? [y/N, e {{...}} to run with your arguments, or a reason]"
        );
        let mut hidden = name.hidden().to_vec();
        hidden.extend(
            arguments
                .hidden()
                .iter()
                .filter(|c| !name.hidden().contains(c)),
        );
        if let Some(warning) = crate::gate::warning(&hidden) {
            self.line(format_args!("  warning  {warning}"));
        }
        let verdict = if self.attended {
            self.write(format_args!("waits      {question} "));
            let mut answer = String::new();
            let read = self.input.lock().await.read_line(&mut answer).await;
            verdict(read.ok().filter(|n| *n > 0).map(|_| answer.trim()))
        } else {
            self.line(format_args!("waits      {question}"));
            self.line(format_args!(
                "  rule     stdin is not a terminal, so no one is asked: \"{UNATTENDED_RULE}\""
            ));
            Err("denied: no one was at the terminal to approve it".to_owned())
        };
        match &verdict {
            Ok(None) => self.line(format_args!("  allowed")),
            Ok(Some(edited)) => self.line(format_args!(
                "  allowed  with your arguments {}",
                Visible::line(edited)
            )),
            Err(message) => self.line(format_args!(
                "  denied   the model reads: {}",
                Visible::text(message)
            )),
        }
        verdict
    }
}

/// An answer read as a decision: `y` or `yes` allow; `e {...}` (or `edit {...}`) allows with
/// those arguments in place of the model's; nothing, `n` or `no` deny; any other text denies
/// with that text as the reason the model reads. `None` is an input that ended.
fn verdict(answer: Option<&str>) -> Result<Option<String>, String> {
    match answer {
        None => Err("denied: the terminal's input ended before an answer".to_owned()),
        Some(answer) => match answer.to_ascii_lowercase().as_str() {
            "y" | "yes" => Ok(None),
            edit if edited(edit).is_some() => Ok(edited(answer).map(str::to_owned)),
            "" | "n" | "no" => Err("denied by the person at the terminal".to_owned()),
            _ => Err(format!("denied by the person at the terminal: {answer}")),
        },
    }
}

/// The arguments of an answer `e {...}` or `edit {...}`: the JSON object after the word.
fn edited(answer: &str) -> Option<&str> {
    let (word, rest) = answer.split_once(char::is_whitespace)?;
    let rest = rest.trim();
    (matches!(word, "e" | "edit" | "E" | "EDIT" | "Edit") && rest.starts_with('{')).then_some(rest)
}

// What the terminal does not show is a no-op here: the defaults would build events no one reads.
impl Observer for Terminal {
    fn model_called(&self, _round: usize) {}
    fn call_progress(&self, _key: &str, _tool: &str, _update: &ProgressUpdate) {}
    fn result_cut(&self, _key: &str, _call: &ToolCall, _full: &str, _kept: usize) {}
    fn paused(&self, _turn: &PausedTurn) {}
    fn tool_skipped(&self, _name: &str, _reason: &str) {}

    fn run_started(&self, model: &str, conversation: &[Message]) {
        self.line(format_args!("model      {model}"));
        if let Some(Message::User { content }) = conversation.last() {
            self.line(format_args!("user       {}", Visible::text(content)));
        }
    }

    fn replied(&self, reply: &AssistantMessage) {
        if let Some(text) = reply.text.as_deref().filter(|t| !t.trim().is_empty()) {
            self.line(format_args!("assistant  {}", Visible::text(text)));
        }
    }

    fn call_started(&self, _key: &str, call: &ToolCall) {
        self.line(format_args!(
            "call       {} {}",
            Visible::line(&call.name),
            Visible::line(&call.arguments)
        ));
    }

    fn call_finished(&self, _key: &str, _call: &ToolCall, result: &ToolResult) {
        match result {
            Ok(output) => self.line(format_args!(
                "  result   {}",
                Visible::text(output.content())
            )),
            Err(error) => {
                let action = self
                    .errors
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .action(error);
                let next = match action {
                    ErrorAction::ToModel => "back to the model",
                    ErrorAction::RollBack => "the run fails",
                };
                let error = Visible::text(&error.to_string());
                self.line(format_args!("  error    {error} ({next})"));
            }
        }
    }

    fn compensated(&self, key: &str, name: &str, _round: usize, error: Option<&str>) {
        let (name, key) = (Visible::line(name), Visible::line(key));
        match error.map(Visible::text) {
            None => self.line(format_args!("rollback   {name} [{key}] undone")),
            Some(error) => self.line(format_args!("rollback   {name} [{key}] failed: {error}")),
        }
    }

    fn run_ended(&self, outcome: &LoopOutcome) {
        let rounds = outcome.rounds;
        match &outcome.status {
            LoopStatus::Answered(_) => self.line(format_args!("answered   after {rounds} rounds")),
            LoopStatus::ReturnedDirect(_) => self.line(format_args!(
                "answered   by the tools, after {rounds} rounds"
            )),
            LoopStatus::Paused(paused) => self.line(format_args!(
                "paused     {} call(s) wait for a decision (run {})",
                paused.awaiting().len(),
                paused.id()
            )),
            LoopStatus::RolledBack { name, .. } => self.line(format_args!(
                "stopped    `{}` failed after {rounds} rounds; {} call(s) rolled back, newest first",
                Visible::line(name),
                outcome.compensations.len()
            )),
            LoopStatus::BudgetExhausted(limit) => self.line(format_args!(
                "stopped    the run's budget is spent after {rounds} rounds: {limit}"
            )),
            LoopStatus::StoreFailed => match &outcome.store_error {
                Some(error) => self.line(format_args!(
                    "stopped    the run's store failed: {}",
                    Visible::text(&error.to_string())
                )),
                None => self.line(format_args!("stopped    the run's store failed")),
            },
            other => self.line(format_args!(
                "stopped    {}",
                Visible::text(&format!("{other:?}"))
            )),
        }
    }
}

impl Approver for Terminal {
    fn decide<'a>(&'a self, paused: &'a PausedTurn) -> ApproverFuture<'a> {
        Box::pin(async move {
            if let Some(reached) = paused.budget_reached() {
                self.line(format_args!(
                    "budget     the run's budget is spent ({}): allowing grants it again",
                    Visible::text(reached)
                ));
            }
            let mut decide = paused.decide();
            for pending in paused.calls().filter(|pending| pending.awaiting) {
                decide = match self.ask(pending.call).await {
                    Ok(None) => decide.allow(&pending.key),
                    Ok(Some(arguments)) => decide.allow_edited(&pending.key, arguments),
                    Err(reason) => decide.deny(&pending.key, reason),
                };
            }
            // Who decided, for the calls' spans: the person at the terminal, or the rule.
            decide.build().with_decider(if self.attended {
                "terminal"
            } else {
                "unattended_rule"
            })
        })
    }
}

impl std::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminal")
            .field("attended", &self.attended)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::PausedTurn;

    #[test]
    fn answers_read_as_decisions() {
        assert_eq!(verdict(Some("y")), Ok(None));
        assert_eq!(verdict(Some("YES")), Ok(None));
        assert_eq!(
            verdict(Some(r#"e {"euros": 300}"#)),
            Ok(Some(r#"{"euros": 300}"#.to_owned()))
        );
        assert_eq!(
            verdict(Some(r#"edit   {"Euros": 1}"#)),
            Ok(Some(r#"{"Euros": 1}"#.to_owned()))
        );
        // A reason that starts with the letter is a reason.
        assert!(verdict(Some("e-mail is wrong")).is_err());
        assert!(verdict(Some("")).is_err());
        assert!(verdict(Some("no")).is_err());
        assert_eq!(
            verdict(Some("too expensive")),
            Err("denied by the person at the terminal: too expensive".to_owned())
        );
        assert!(verdict(None).unwrap_err().contains("ended"));
    }

    /// A writer the test reads back.
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn paused() -> PausedTurn {
        let reply = AssistantMessage::with_tool_calls(vec![
            ToolCall::new("c1", "pay", r#"{"euros":5}"#),
            ToolCall::new("c2", "pay", r#"{"euros":900}"#),
            ToolCall::new("c3", "pay", r#"{"euros":700}"#),
        ]);
        PausedTurn::new(reply, ["pay"], ["c1", "c2", "c3"])
    }

    #[tokio::test]
    async fn a_person_is_asked_about_each_waiting_call() {
        let shown = Shared::default();
        let terminal = Terminal::new(
            &b"y\ntoo much\ne {\"euros\": 70}\n"[..],
            shown.clone(),
            true,
        );
        let turn = paused();
        let decisions = terminal.decide(&turn).await;
        let verdicts: Vec<_> = decisions
            .decisions()
            .iter()
            .map(|d| (d.key.as_str(), d.verdict.clone()))
            .collect();
        assert_eq!(verdicts.len(), 3);
        assert_eq!(decisions.decider(), Some("terminal"));
        assert!(matches!(
            verdicts[0],
            ("c1", crate::gate::Verdict::Allow { .. })
        ));
        assert!(
            matches!(&verdicts[1], ("c2", crate::gate::Verdict::Deny { message }) if message.ends_with("too much"))
        );
        assert!(
            matches!(&verdicts[2], ("c3", crate::gate::Verdict::AllowEdited { arguments, .. }) if arguments == r#"{"euros": 70}"#)
        );
        let text = String::from_utf8(shown.0.lock().unwrap().clone()).unwrap();
        assert!(
            text.contains(
                r#"Allow pay {"euros":900}? [y/N, e {...} to run with your arguments, or a reason]"#
            ),
            "{text}"
        );
        assert!(
            text.contains(r#"allowed  with your arguments {"euros": 70}"#),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_spent_budget_is_said_before_its_question() {
        let shown = Shared::default();
        let terminal = Terminal::new(&b"y\n"[..], shown.clone(), true);
        let reply = AssistantMessage::with_tool_calls(vec![ToolCall::new(
            "tool_sdk_budget",
            "extend_budget",
            r#"{"reached":"240 tokens used of 230"}"#,
        )]);
        let mut turn = PausedTurn::new(reply, ["extend_budget"], ["tool_sdk_budget"]);
        turn.run.budget.asked = Some(crate::store::BudgetAsk {
            reached: "240 tokens used of 230".into(),
            limit: serde_json::Value::Null,
            waits: crate::store::BudgetWaits::Extension,
        });
        let decisions = terminal.decide(&turn).await;
        assert_eq!(decisions.decisions().len(), 1);
        let text = String::from_utf8(shown.0.lock().unwrap().clone()).unwrap();
        assert!(
            text.starts_with(
                "budget     the run's budget is spent (240 tokens used of 230): allowing grants it again\n"
            ),
            "{text}"
        );
    }

    #[tokio::test]
    async fn what_a_model_or_a_tool_wrote_cannot_rewrite_the_question() {
        let shown = Shared::default();
        let terminal = Terminal::new(&b"n\n"[..], shown.clone(), true);
        // The model's text clears the screen; the call's address is reversed by U+202E, and a
        // carriage return with an erase would hide the real amount.
        terminal.replied(&AssistantMessage::text("done\x1b[2J\x1b[H"));
        let reply = AssistantMessage::with_tool_calls(vec![ToolCall::new(
            "c1",
            "pay",
            "{\"to\":\"\u{202E}moc.elpmaxe@maet\",\"euros\":900}\r\x1b[2K{\"euros\":5}",
        )]);
        let turn = PausedTurn::new(reply, ["pay"], ["c1"]);
        terminal.decide(&turn).await;
        let call = ToolCall::new("c1", "pay", "{}");
        terminal.call_finished(
            "c1",
            &call,
            &Ok(crate::define::ToolOutput::text("ok\u{9b}2J")),
        );
        let text = String::from_utf8(shown.0.lock().unwrap().clone()).unwrap();
        for applied in ['\x1b', '\r', '\u{202E}', '\u{9b}'] {
            assert!(
                !text.contains(applied),
                "{applied:?} reached the terminal: {text}"
            );
        }
        assert!(
            text.contains("assistant  done⟨U+001B⟩[2J⟨U+001B⟩[H"),
            "{text}"
        );
        assert!(
            text.contains("Allow pay {\"to\":\"⟨U+202E⟩moc.elpmaxe@maet\",\"euros\":900}⟨U+000D⟩⟨U+001B⟩[2K{\"euros\":5}?"),
            "{text}"
        );
        assert!(text.contains("  warning  Hidden characters"), "{text}");
        assert!(text.contains("result   ok⟨U+009B⟩2J"), "{text}");
    }

    #[tokio::test]
    async fn without_a_person_the_rule_denies_and_says_so() {
        let shown = Shared::default();
        let terminal = Terminal::new(&b"y\n"[..], shown.clone(), false);
        let decisions = terminal.decide(&paused()).await;
        assert!(decisions
            .decisions()
            .iter()
            .all(|d| matches!(d.verdict, crate::gate::Verdict::Deny { .. })));
        assert_eq!(decisions.decider(), Some("unattended_rule"));
        let text = String::from_utf8(shown.0.lock().unwrap().clone()).unwrap();
        assert!(text.contains(UNATTENDED_RULE), "{text}");
    }
}
