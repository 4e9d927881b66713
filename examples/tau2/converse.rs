//! A task as τ² runs it with real models: an agent model that serves the customer through the
//! domain's tools under the policy, and a second model that plays the customer from the task's
//! scenario, each prompted in τ²'s words; then τ²'s reward.
//!
//! τ²'s orchestration, kept: the agent opens with "Hi! How can I help you today?"; the
//! simulated user sees the agent's messages as the other side's and never its tool calls; the
//! user ends the conversation by writing `###STOP###` (or `###TRANSFER###`,
//! `###OUT-OF-SCOPE###`); a conversation that reaches `max_steps` messages ends without reward.
//! The reward is τ²'s default basis: the database after the conversation must hash as the
//! task's golden actions leave it, and every string of the task's `communicate_info` must appear
//! in one of the agent's messages (compared as τ² does, lower-cased, commas dropped).
//!
//! What this SDK adds: each agent turn is one run of the loop, so a write the policy gates asks
//! the approver first (here a stand-in that allows: τ²'s policy wants the customer's consent in
//! the conversation, which the reward does not check), and a run that fails rolls its writes back.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use tool_sdk::model::openai::OpenAiCompatibleModel;
use tool_sdk::model::{ChatOptions, ChatRequest};
use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::store::PausedTurn;
use tool_sdk::{ChatModel, Message, ToolRegistry};

use crate::data::Task;

/// τ²'s instruction to the agent, above the domain's policy.
const AGENT_INSTRUCTION: &str =
    "You are a customer service agent that helps the user according to the <policy> provided below.
In each turn you can either:
- Send a message to the user.
- Make a tool call.
You cannot do both at the same time.

Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.";

/// τ²'s first agent message.
const GREETING: &str = "Hi! How can I help you today?";

/// What the simulated user writes to end the conversation.
const STOPS: [&str; 3] = ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"];

/// Rounds one agent turn may take (model calls, each with its tool calls) before it must
/// answer the customer.
const ROUNDS_PER_TURN: usize = 30;

/// The two models of a conversation.
pub(crate) struct Models {
    pub(crate) agent: Arc<dyn ChatModel>,
    pub(crate) user: Arc<dyn ChatModel>,
}

/// How a conversation ended.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Ending {
    /// The simulated user ended it: the reward counts.
    UserStop,
    /// More than the steps allowed: no reward, as in τ².
    MaxSteps,
    /// A model could not be called, or a run failed: no reward.
    Error(String),
}

/// One conversation's result.
#[derive(Debug, Serialize)]
pub(crate) struct Conversed {
    pub(crate) task: String,
    pub(crate) ending: Ending,
    /// The database hashes as the golden actions leave it.
    pub(crate) db: bool,
    /// Every required string was said by the agent.
    pub(crate) communicate: bool,
    /// τ²'s reward: 1 when the conversation ended by the user and both hold, else 0.
    pub(crate) reward: u8,
    /// Messages of the conversation (agent, user and tool results), as τ² counts steps.
    pub(crate) steps: usize,
    /// Tool calls the agent made.
    pub(crate) calls: usize,
    /// Calls that waited for the approver (the writes).
    pub(crate) asked: usize,
    /// Seconds the agent's turns took (its model, the tools and the loop).
    pub(crate) agent_seconds: f64,
    /// Seconds the simulated user's model took.
    pub(crate) user_seconds: f64,
    /// The conversation as lines: `agent: ...`, `user: ...`, `call: name {arguments}`,
    /// `result: ...` (printed with `--json`).
    pub(crate) transcript: Vec<String>,
}

/// What every conversation of a domain shares.
pub(crate) struct Setup<'a> {
    /// The domain's `policy.md`.
    pub(crate) policy: &'a str,
    /// τ²'s guidelines for the simulated user.
    pub(crate) guidelines: &'a str,
    pub(crate) models: &'a Models,
    /// Messages a conversation may have before it ends without reward (τ²'s default: 200).
    pub(crate) max_steps: usize,
}

/// Runs `task` as τ² does, with `registry` over the task's fresh database; `hash` gives the
/// database's hash afterwards, which the reward compares with `golden_hash`, the hash the
/// task's golden actions leave.
pub(crate) async fn converse(
    task: &Task,
    setup: &Setup<'_>,
    registry: ToolRegistry,
    golden_hash: &str,
    hash: impl FnOnce() -> Result<String, String>,
) -> Result<Conversed, String> {
    let Setup {
        policy,
        guidelines,
        models,
        max_steps,
    } = *setup;
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let approver = {
        let asked = Arc::clone(&asked);
        move |paused: &PausedTurn| {
            asked.fetch_add(
                paused.awaiting().len(),
                std::sync::atomic::Ordering::Relaxed,
            );
            let mut decide = paused.decide();
            for pending in paused.calls() {
                decide = decide.allow(&pending.key);
            }
            decide.build()
        }
    };
    let agent = ToolLoop::new(Arc::clone(&models.agent), registry)
        .with_options(crate::oracle::options(ROUNDS_PER_TURN))
        .with_approver(approver);
    let system = format!(
        "<instructions>\n{AGENT_INSTRUCTION}\n</instructions>\n<policy>\n{policy}\n</policy>"
    );
    let user_system = format!(
        "{guidelines}\n\n<scenario>\n{}\n</scenario>",
        task.scenario()
    );
    let mut conversation = vec![
        Message::system(system),
        Message::Assistant(tool_sdk::AssistantMessage::text(GREETING)),
    ];
    let (mut agent_seconds, mut user_seconds, mut calls) = (0.0, 0.0, 0);
    let ending = loop {
        if steps(&conversation) >= max_steps {
            break Ending::MaxSteps;
        }
        let started = Instant::now();
        let said = match simulated_user(&*models.user, &user_system, &conversation).await {
            Ok(said) => said,
            Err(error) => break Ending::Error(format!("the user's model: {error}")),
        };
        user_seconds += started.elapsed().as_secs_f64();
        let stops = STOPS.iter().any(|stop| said.contains(stop));
        conversation.push(Message::user(said));
        if stops {
            break Ending::UserStop;
        }
        if steps(&conversation) >= max_steps {
            break Ending::MaxSteps;
        }
        let started = Instant::now();
        let outcome = agent.run(&mut conversation).await;
        agent_seconds += started.elapsed().as_secs_f64();
        calls += outcome.calls.len();
        match outcome.status {
            LoopStatus::Answered(_) => {}
            LoopStatus::MaxRoundsReached => break Ending::MaxSteps,
            other => break Ending::Error(format!("the agent's run ended {other:?}")),
        }
    };
    let db = hash()? == golden_hash;
    let communicate = task
        .communicate_info()
        .iter()
        .all(|info| said_by_agent(&conversation, info));
    let reward = u8::from(ending == Ending::UserStop && db && communicate);
    Ok(Conversed {
        task: task.id.clone(),
        ending,
        db,
        communicate,
        reward,
        steps: steps(&conversation),
        calls,
        asked: asked.load(std::sync::atomic::Ordering::Relaxed),
        agent_seconds,
        user_seconds,
        transcript: transcript(&conversation),
    })
}

/// The conversation, one line a message or call, past the system message.
fn transcript(conversation: &[Message]) -> Vec<String> {
    let mut lines = Vec::new();
    for message in conversation {
        match message {
            Message::System { .. } => {}
            Message::User { content } => lines.push(format!("user: {content}")),
            Message::Assistant(reply) => {
                if let Some(text) = reply.text.as_deref().filter(|text| !text.is_empty()) {
                    lines.push(format!("agent: {text}"));
                }
                for call in &reply.tool_calls {
                    lines.push(format!("call: {} {}", call.name, call.arguments));
                }
            }
            Message::Tool(result) => lines.push(format!("result: {}", result.content)),
        }
    }
    lines
}

/// Messages of the conversation as τ² counts its steps: all but the system message.
fn steps(conversation: &[Message]) -> usize {
    conversation
        .iter()
        .filter(|message| !matches!(message, Message::System { .. }))
        .count()
}

/// The simulated user's next message. It sees the conversation from its side: the agent's
/// messages are the other party's, its own are its replies, and tool calls and results are not
/// seen at all.
async fn simulated_user(
    user: &dyn ChatModel,
    system: &str,
    conversation: &[Message],
) -> Result<String, String> {
    let mut seen = vec![Message::system(system)];
    for message in conversation {
        match message {
            Message::Assistant(reply) => {
                if let Some(text) = reply.text.as_deref().filter(|text| !text.is_empty()) {
                    seen.push(Message::user(text));
                }
            }
            Message::User { content } => seen.push(Message::Assistant(
                tool_sdk::AssistantMessage::text(content.clone()),
            )),
            Message::System { .. } | Message::Tool(_) => {}
        }
    }
    let options = ChatOptions::new();
    let request = ChatRequest {
        messages: &seen,
        tools: &[],
        options: &options,
    };
    let response = user
        .chat(request)
        .await
        .map_err(|error| error.to_string())?;
    Ok(response.message.text.unwrap_or_default())
}

/// Whether one of the agent's messages says `info`, as τ² checks it.
fn said_by_agent(conversation: &[Message], info: &str) -> bool {
    let info = info.to_lowercase();
    conversation.iter().any(|message| match message {
        Message::Assistant(reply) => reply
            .text
            .as_deref()
            .is_some_and(|text| text.to_lowercase().replace(',', "").contains(&info)),
        _ => false,
    })
}

/// Every task of the domain (or those `args` names) as τ² runs them with real models: one
/// line a task, then pass^1, the mean reward.
pub(crate) async fn converse_all<D: crate::Domain>(
    args: &crate::Args,
    dir: &Path,
    db: &D::Db,
    tasks: &[Task],
) -> Result<(), String> {
    let models = models()?;
    let read = |path: PathBuf| {
        std::fs::read_to_string(&path).map_err(|error| format!("{}: {error}", path.display()))
    };
    let policy = read(dir.join("policy.md"))?;
    let root = dir.parent().unwrap_or(dir);
    let guidelines = read(root.join("user_simulator").join("simulation_guidelines.md"))?;
    let setup = Setup {
        policy: &policy,
        guidelines: &guidelines,
        models: &models,
        max_steps: args.max_steps,
    };
    let chosen: Vec<&Task> = tasks
        .iter()
        .filter(|task| args.task.as_ref().is_none_or(|only| *only == task.id))
        .take(args.first.unwrap_or(usize::MAX))
        .collect();
    if !args.json {
        println!(
            "{}: {} tasks; agent {}, user {}",
            args.domain,
            chosen.len(),
            models.agent.description(),
            models.user.description()
        );
    }
    let mut rewards = 0;
    for (nth, task) in chosen.iter().enumerate() {
        let golden = Arc::new(D::new(db.clone()));
        crate::oracle::replay(
            task,
            crate::registry(&golden)?,
            crate::oracle::End::Answers,
            crate::oracle::Fault::None,
            None,
        )
        .await?;
        let golden_hash = golden.store().db_hash()?;
        let domain = Arc::new(D::new(db.clone()));
        let registry = crate::registry(&domain)?;
        let conversed = converse(task, &setup, registry, &golden_hash, || {
            domain.store().db_hash()
        })
        .await?;
        rewards += usize::from(conversed.reward);
        if args.json {
            println!(
                "{}",
                serde_json::to_string(&conversed).map_err(|e| e.to_string())?
            );
        } else {
            println!(
                "[{}/{}] task {:>3}: reward {} (database {}, said {}), {:?}, {} messages, {} calls \
                 ({} gated), agent {:.0} s, user {:.0} s",
                nth + 1,
                chosen.len(),
                conversed.task,
                conversed.reward,
                conversed.db,
                conversed.communicate,
                conversed.ending,
                conversed.steps,
                conversed.calls,
                conversed.asked,
                conversed.agent_seconds,
                conversed.user_seconds,
            );
        }
    }
    let pass = rewards as f64 / chosen.len().max(1) as f64;
    if args.json {
        println!(
            "{}",
            serde_json::json!({ "domain": args.domain, "tasks": chosen.len(), "pass^1": pass })
        );
    } else {
        println!(
            "{} pass^1: {pass:.3} ({rewards} of {} tasks)",
            args.domain,
            chosen.len()
        );
    }
    Ok(())
}

/// The agent's model, as the environment names it (`OPENAI_BASE_URL` and `OPENAI_MODEL`, or
/// Anthropic's or Gemini's variables), and the simulated user's: an OpenAI-compatible server
/// at `TAU2_USER_BASE_URL` (with `TAU2_USER_MODEL`, `TAU2_USER_API_KEY`) when set, else the
/// agent's.
fn models() -> Result<Models, String> {
    let agent: Arc<dyn ChatModel> = tool_sdk::model::from_env()
        .map_err(|error| error.to_string())?
        .ok_or(
            "--converse needs a model: set OPENAI_BASE_URL and OPENAI_MODEL (or Anthropic's or \
             Gemini's variables) for the agent, and TAU2_USER_BASE_URL for the simulated user",
        )?
        .into();
    let user: Arc<dyn ChatModel> = match std::env::var("TAU2_USER_BASE_URL") {
        Ok(url) if !url.trim().is_empty() => {
            let mut builder = OpenAiCompatibleModel::builder()
                .with_base_url(url)
                .with_model(std::env::var("TAU2_USER_MODEL").unwrap_or_else(|_| "user".into()));
            if let Ok(key) = std::env::var("TAU2_USER_API_KEY") {
                builder = builder.with_api_key(key);
            }
            Arc::new(builder.build().map_err(|error| error.to_string())?)
        }
        _ => Arc::clone(&agent),
    };
    Ok(Models { agent, user })
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use tool_sdk::{AssistantMessage, ScriptedModel, ToolCall};

    /// A write the policy gates: it notes `text`.
    #[derive(Default)]
    struct Notes(Mutex<Vec<String>>);

    #[tool_sdk::tools]
    impl Notes {
        /// Notes a text.
        #[tool(confirm)]
        fn note(&self, text: String) -> String {
            self.0.lock().unwrap().push(text);
            "noted".into()
        }
    }

    fn task(communicate: &[&str]) -> Task {
        serde_json::from_value(serde_json::json!({
            "id": "7",
            "evaluation_criteria": {"actions": [], "communicate_info": communicate},
            "user_scenario": {"instructions": "Ask for a refund."},
        }))
        .unwrap()
    }

    /// A conversation of `agent`'s and `user`'s replies over the notes, its hash the notes
    /// joined, rewarded against `golden`.
    async fn converse_with(
        agent: Vec<AssistantMessage>,
        user: Vec<&str>,
        communicate: &[&str],
        golden: &str,
        max_steps: usize,
    ) -> (Conversed, Arc<ScriptedModel>) {
        let user = Arc::new(ScriptedModel::new(
            user.into_iter().map(AssistantMessage::text),
        ));
        let models = Models {
            agent: Arc::new(ScriptedModel::new(agent)),
            user: Arc::clone(&user) as Arc<dyn ChatModel>,
        };
        let setup = Setup {
            policy: "Be kind.",
            guidelines: "Play the customer.",
            models: &models,
            max_steps,
        };
        let notes = Arc::new(Notes::default());
        let mut registry = ToolRegistry::new();
        registry.register_set(Arc::clone(&notes)).unwrap();
        let conversed = converse(&task(communicate), &setup, registry, golden, || {
            Ok(notes.0.lock().unwrap().join(","))
        })
        .await
        .unwrap();
        (conversed, user)
    }

    fn call(text: &str) -> AssistantMessage {
        AssistantMessage::with_tool_calls(vec![ToolCall::new(
            "c1",
            "note",
            format!(r#"{{"text": "{text}"}}"#),
        )])
    }

    #[tokio::test]
    async fn a_conversation_the_user_ends_is_rewarded_when_the_database_and_the_words_hold() {
        let (conversed, user) = converse_with(
            vec![
                call("refund"),
                AssistantMessage::text("Your refund is $1,628."),
            ],
            vec!["I want a refund.", "Thank you. ###STOP###"],
            &["1628"],
            "refund",
            200,
        )
        .await;
        assert_eq!(conversed.ending, Ending::UserStop);
        assert_eq!(
            (conversed.db, conversed.communicate, conversed.reward),
            (true, true, 1)
        );
        // Greeting, user, the call and its result, the answer, the user's goodbye.
        assert_eq!(
            (conversed.steps, conversed.calls, conversed.asked),
            (6, 1, 1)
        );
        // The simulated user sees the scenario, and the agent's words as the other side's,
        // never its calls.
        let seen = user.requests();
        let last = &seen[1].messages;
        assert!(matches!(&last[0], Message::System { content }
            if content == "Play the customer.\n\n<scenario>\nInstructions:\n\tAsk for a refund.\n</scenario>"));
        let texts: Vec<String> = last[1..]
            .iter()
            .map(|message| match message {
                Message::User { content } => format!("agent: {content}"),
                Message::Assistant(reply) => format!("me: {}", reply.text.clone().unwrap()),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            texts,
            [
                "agent: Hi! How can I help you today?",
                "me: I want a refund.",
                "agent: Your refund is $1,628.",
            ]
        );
    }

    #[tokio::test]
    async fn a_wrong_database_missing_words_or_a_long_conversation_earn_nothing() {
        let wrong_db = converse_with(
            vec![
                call("voucher"),
                AssistantMessage::text("Your refund is 1628."),
            ],
            vec!["I want a refund.", "###STOP###"],
            &["1628"],
            "refund",
            200,
        )
        .await
        .0;
        assert_eq!(
            (wrong_db.db, wrong_db.communicate, wrong_db.reward),
            (false, true, 0)
        );
        let unsaid = converse_with(
            vec![call("refund"), AssistantMessage::text("Done.")],
            vec!["I want a refund.", "###TRANSFER###"],
            &["1628"],
            "refund",
            200,
        )
        .await
        .0;
        assert_eq!(
            (unsaid.db, unsaid.communicate, unsaid.reward),
            (true, false, 0)
        );
        let long = converse_with(
            vec![
                call("refund"),
                AssistantMessage::text("Your refund is 1628."),
            ],
            vec!["I want a refund.", "And more?", "###STOP###"],
            &["1628"],
            "refund",
            5,
        )
        .await
        .0;
        assert_eq!((long.ending, long.reward), (Ending::MaxSteps, 0));
        assert!(long.db && long.communicate);
    }
}
