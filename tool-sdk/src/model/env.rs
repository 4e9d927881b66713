//! The model the environment names, if any: how examples and applications pick a real model
//! when one is configured, and fall back to another (such as a scripted one) when none is.

use crate::model::{ChatModel, ModelError};

/// The model the environment names: with `OPENAI_BASE_URL` set (and not blank), an
/// [`OpenAiCompatibleModel`](crate::model::openai::OpenAiCompatibleModel) from
/// `OPENAI_BASE_URL`, `OPENAI_MODEL` and `OPENAI_API_KEY` (feature `openai`); `None` when no
/// model is configured. A configuration that is there but unusable (`OPENAI_BASE_URL` without
/// `OPENAI_MODEL`, say) is an error, never a silent fallback.
///
/// ```
/// use tool_sdk::model::{self, ScriptedModel};
/// use tool_sdk::AssistantMessage;
///
/// # fn main() -> Result<(), tool_sdk::model::ModelError> {
/// let fallback = ScriptedModel::new([AssistantMessage::text("Hello.")]);
/// let model = model::from_env()?.unwrap_or(Box::new(fallback));
/// # let _ = model;
/// # Ok(())
/// # }
/// ```
pub fn from_env() -> Result<Option<Box<dyn ChatModel>>, ModelError> {
    #[cfg(feature = "openai")]
    {
        let configured = std::env::var_os(crate::model::openai::ENV_BASE_URL)
            .is_some_and(|url| !url.to_string_lossy().trim().is_empty());
        if configured {
            let model = crate::model::openai::OpenAiCompatibleModel::from_env()?;
            return Ok(Some(Box::new(model)));
        }
    }
    Ok(None)
}
