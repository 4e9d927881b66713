//! The model the environment names, if any: how examples and applications pick a real model
//! when one is configured, and fall back to another (such as a scripted one) when none is.

use crate::model::{ChatModel, ModelError};

/// The model the environment names, the first of:
///
/// 1. `OPENAI_BASE_URL` set: an [`OpenAiCompatibleModel`](crate::model::openai::OpenAiCompatibleModel)
///    from `OPENAI_BASE_URL`, `OPENAI_MODEL` and `OPENAI_API_KEY` (feature `openai`);
/// 2. `ANTHROPIC_API_KEY` set: an [`AnthropicModel`](crate::model::anthropic::AnthropicModel)
///    from `ANTHROPIC_API_KEY`, `ANTHROPIC_MODEL` and `ANTHROPIC_BASE_URL` (feature
///    `anthropic`);
/// 3. `GEMINI_API_KEY` set: a [`GeminiModel`](crate::model::gemini::GeminiModel) from
///    `GEMINI_API_KEY`, `GEMINI_MODEL` and `GEMINI_BASE_URL` (feature `gemini`);
///
/// `None` when no model is configured. A configuration that is there but unusable
/// (`OPENAI_BASE_URL` without `OPENAI_MODEL`, say) is an error, never a silent fallback.
/// [`ChatModel::description`] says which model it is.
///
/// ```
/// use tool_sdk::model::{self, ScriptedModel};
/// use tool_sdk::AssistantMessage;
///
/// # fn main() -> Result<(), tool_sdk::model::ModelError> {
/// let fallback = ScriptedModel::new([AssistantMessage::text("Hello.")]);
/// let model = model::from_env()?.unwrap_or(Box::new(fallback));
/// println!("using the {}", model.description());
/// # Ok(())
/// # }
/// ```
pub fn from_env() -> Result<Option<Box<dyn ChatModel>>, ModelError> {
    #[cfg(feature = "openai")]
    if is_set(crate::model::openai::ENV_BASE_URL) {
        let model = crate::model::openai::OpenAiCompatibleModel::from_env()?;
        return Ok(Some(Box::new(model)));
    }
    #[cfg(feature = "anthropic")]
    if is_set(crate::model::anthropic::ENV_API_KEY) {
        let model = crate::model::anthropic::AnthropicModel::from_env()?;
        return Ok(Some(Box::new(model)));
    }
    #[cfg(feature = "gemini")]
    if is_set(crate::model::gemini::ENV_API_KEY) {
        let model = crate::model::gemini::GeminiModel::from_env()?;
        return Ok(Some(Box::new(model)));
    }
    Ok(None)
}

/// Whether the variable is set to something other than blanks.
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
fn is_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|value| !value.to_string_lossy().trim().is_empty())
}
