//! A run shown at a terminal as it goes, and a person there asked about the calls that wait.

use std::io::{IsTerminal as _, Write};
use std::sync::Mutex;

use tokio::io::{AsyncBufRead, AsyncBufReadExt as _};

use crate::define::{ToolError, ToolResult};
use crate::model::{AssistantMessage, Message, ToolCall};
use crate::run::approve::{Approver, ApproverFuture};
use crate::run::{ErrorAction, LoopOutcome, LoopStatus};
use crate::store::PausedTurn;

/// The rule that decides when no person can be asked: stdin is not a terminal.
pub const UNATTENDED_RULE: &str = "deny what no one can approve";

/// Writes each step of a run, and asks about each waiting call: at the terminal when stdin is
/// one, else by [`UNATTENDED_RULE`], saying so.
pub(crate) struct Terminal {
    output: Mutex<Box<dyn Write + Send>>,
    input: tokio::sync::Mutex<Box<dyn AsyncBufRead + Unpin + Send>>,
    attended: bool,
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
        }
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

    pub(crate) fn started(&self, model: &str, conversation: &[Message]) {
        self.line(format_args!("model      {model}"));
        if let Some(Message::User { content }) = conversation.last() {
            self.line(format_args!("user       {content}"));
        }
    }

    pub(crate) fn replied(&self, reply: &AssistantMessage) {
        if let Some(text) = reply.text.as_deref().filter(|t| !t.trim().is_empty()) {
            self.line(format_args!("assistant  {text}"));
        }
    }

    pub(crate) fn call_started(&self, call: &ToolCall) {
        self.line(format_args!("call       {} {}", call.name, call.arguments));
    }

    pub(crate) fn call_ended(
        &self,
        result: &ToolResult,
        action: impl Fn(&ToolError) -> ErrorAction,
    ) {
        match result {
            Ok(output) => self.line(format_args!("  result   {}", output.content())),
            Err(error) => {
                let next = match action(error) {
                    ErrorAction::ToModel => "back to the model",
                    ErrorAction::RollBack => "the run fails",
                };
                self.line(format_args!("  error    {error} ({next})"));
            }
        }
    }

    pub(crate) fn rolled_back(&self, name: &str, key: &str, error: Option<&str>) {
        match error {
            None => self.line(format_args!("rollback   {name} [{key}] undone")),
            Some(error) => self.line(format_args!("rollback   {name} [{key}] failed: {error}")),
        }
    }

    pub(crate) fn ended(&self, outcome: &LoopOutcome) {
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
                "stopped    `{name}` failed after {rounds} rounds; {} call(s) rolled back, newest first",
                outcome.compensations.len()
            )),
            LoopStatus::StoreFailed => match &outcome.store_error {
                Some(error) => self.line(format_args!("stopped    the run's store failed: {error}")),
                None => self.line(format_args!("stopped    the run's store failed")),
            },
            other => self.line(format_args!("stopped    {other:?}")),
        }
    }

    /// What the person answered about `call`: an allowance, or the denial the model reads.
    async fn ask(&self, call: &ToolCall) -> Result<(), String> {
        let question = format!("Allow {} {}? [y/N, or a reason]", call.name, call.arguments);
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
            Ok(()) => self.line(format_args!("  allowed")),
            Err(message) => self.line(format_args!("  denied   the model reads: {message}")),
        }
        verdict
    }
}

/// An answer read as a decision: `y` or `yes` allow; nothing, `n` or `no` deny; any other text
/// denies with that text as the reason the model reads. `None` is an input that ended.
fn verdict(answer: Option<&str>) -> Result<(), String> {
    match answer {
        None => Err("denied: the terminal's input ended before an answer".to_owned()),
        Some(answer) => match answer.to_ascii_lowercase().as_str() {
            "y" | "yes" => Ok(()),
            "" | "n" | "no" => Err("denied by the person at the terminal".to_owned()),
            _ => Err(format!("denied by the person at the terminal: {answer}")),
        },
    }
}

impl Approver for Terminal {
    fn decide<'a>(&'a self, paused: &'a PausedTurn) -> ApproverFuture<'a> {
        Box::pin(async move {
            let mut decide = paused.decide();
            for pending in paused.calls().filter(|pending| pending.awaiting) {
                decide = match self.ask(pending.call).await {
                    Ok(()) => decide.allow(&pending.key),
                    Err(reason) => decide.deny(&pending.key, reason),
                };
            }
            decide.build()
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
        assert_eq!(verdict(Some("y")), Ok(()));
        assert_eq!(verdict(Some("YES")), Ok(()));
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
        ]);
        PausedTurn::new(reply, ["pay"], ["c1", "c2"])
    }

    #[tokio::test]
    async fn a_person_is_asked_about_each_waiting_call() {
        let shown = Shared::default();
        let terminal = Terminal::new(&b"y\ntoo much\n"[..], shown.clone(), true);
        let turn = paused();
        let decisions = terminal.decide(&turn).await;
        let verdicts: Vec<_> = decisions
            .decisions()
            .iter()
            .map(|d| (d.key.as_str(), d.verdict.clone()))
            .collect();
        assert_eq!(verdicts.len(), 2);
        assert!(matches!(
            verdicts[0],
            ("c1", crate::gate::Verdict::Allow { .. })
        ));
        assert!(
            matches!(&verdicts[1], ("c2", crate::gate::Verdict::Deny { message }) if message.ends_with("too much"))
        );
        let text = String::from_utf8(shown.0.lock().unwrap().clone()).unwrap();
        assert!(
            text.contains(r#"Allow pay {"euros":900}? [y/N, or a reason]"#),
            "{text}"
        );
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
        let text = String::from_utf8(shown.0.lock().unwrap().clone()).unwrap();
        assert!(text.contains(UNATTENDED_RULE), "{text}");
    }
}
