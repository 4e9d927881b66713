//! A loop set up in one call: the model the environment names, or a script, and the tools.

use crate::model::{ModelError, ScriptedModel};
use crate::register::{IntoRegistry, RegistryError};
use crate::run::ToolLoop;

/// Why a loop could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The model could not be set up: a variable of the environment, or the script.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A tool could not be registered (a name taken twice, or one providers refuse).
    #[error(transparent)]
    Tools(#[from] RegistryError),
}

impl ToolLoop {
    /// A loop over the real model the environment names ([`model::from_env`]), or, when it
    /// names none, over a [`ScriptedModel`] replaying `script`
    /// ([`ScriptedModel::from_script`]); with `tools`, a tuple of tools or a
    /// [`ToolRegistry`](crate::ToolRegistry).
    ///
    /// The script is read either way, so a mistake in it shows on every machine.
    ///
    /// # Errors
    ///
    /// [`SetupError::Model`] when a variable of the environment is wrong or the script cannot
    /// be read; [`SetupError::Tools`] when two tools share a name.
    ///
    /// # Examples
    ///
    /// ```
    /// use tool_sdk::{tool, ToolLoop};
    ///
    /// /// Adds two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 { a + b }
    ///
    /// let agent = ToolLoop::from_env_or(r#"
    ///     add {"a": 2, "b": 3}
    ///
    ///     2 + 3 = 5
    /// "#, (AddTool,))?;
    /// # Ok::<(), tool_sdk::run::SetupError>(())
    /// ```
    ///
    /// [`model::from_env`]: crate::model::from_env
    pub fn from_env_or(script: &str, tools: impl IntoRegistry) -> Result<Self, SetupError> {
        let scripted = ScriptedModel::from_script(script)?;
        let registry = tools.into_registry()?;
        Ok(match crate::model::from_env()? {
            Some(model) => Self::new(model, registry),
            None => Self::new(scripted, registry),
        })
    }
}
