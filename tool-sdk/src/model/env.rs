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
    if let Some(model) = named::<crate::model::openai::OpenAiCompatible>(|env| env.base_url)? {
        return Ok(Some(model));
    }
    #[cfg(feature = "anthropic")]
    if let Some(model) = named::<crate::model::anthropic::Anthropic>(|env| env.api_key)? {
        return Ok(Some(model));
    }
    #[cfg(feature = "gemini")]
    if let Some(model) = named::<crate::model::gemini::Gemini>(|env| env.api_key)? {
        return Ok(Some(model));
    }
    Ok(None)
}

/// The model of provider `P`, read from its variables, when the one `marker` picks is set to
/// something other than blanks.
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
fn named<P: crate::model::http::Provider>(
    marker: fn(&crate::model::http::Env) -> &'static str,
) -> Result<Option<Box<dyn ChatModel>>, ModelError> {
    use crate::model::http::HttpModel;
    let set = std::env::var_os(marker(&P::ENV))
        .is_some_and(|value| !value.to_string_lossy().trim().is_empty());
    if !set {
        return Ok(None);
    }
    Ok(Some(Box::new(HttpModel::<P>::from_env()?)))
}
