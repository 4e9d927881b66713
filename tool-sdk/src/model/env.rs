//! The model the environment names, if any: how examples and applications pick a real model
//! when one is configured, and fall back to another (such as a scripted one) when none is.

use crate::model::{ChatModel, ModelError};

/// The model the environment names, the first of:
///
/// 1. `OPENAI_BASE_URL` set: an
///    [`OpenAiCompatibleModel`](crate::model::openai::OpenAiCompatibleModel) from
///    `OPENAI_BASE_URL`, `OPENAI_MODEL` and `OPENAI_API_KEY` (feature `openai`);
/// 2. `ANTHROPIC_API_KEY` or `ANTHROPIC_BASE_URL` set: an
///    [`AnthropicModel`](crate::model::anthropic::AnthropicModel) from `ANTHROPIC_API_KEY`,
///    `ANTHROPIC_MODEL` and `ANTHROPIC_BASE_URL` (feature `anthropic`);
/// 3. `GEMINI_API_KEY` or `GEMINI_BASE_URL` set: a
///    [`GeminiModel`](crate::model::gemini::GeminiModel) from `GEMINI_API_KEY`,
///    `GEMINI_MODEL` and `GEMINI_BASE_URL` (feature `gemini`);
///
/// `None` when no model is configured. A configuration that is there but unusable
/// (`OPENAI_BASE_URL` without `OPENAI_MODEL`, say, or set in a build without the feature
/// `openai`) is an error, never a silent fallback.
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
    from_lookup(&|name| std::env::var(name))
}

/// [`from_env`] over the variables `lookup` finds.
fn from_lookup(lookup: &Lookup<'_>) -> Result<Option<Box<dyn ChatModel>>, ModelError> {
    #[cfg(feature = "openai")]
    if let Some(model) =
        named::<crate::model::openai::OpenAiCompatible, 1>(lookup, |env| [env.base_url])?
    {
        return Ok(Some(model));
    }
    #[cfg(not(feature = "openai"))]
    absent(lookup, "openai", &OPENAI_MARKERS)?;
    #[cfg(feature = "anthropic")]
    if let Some(model) =
        named::<crate::model::anthropic::Anthropic, 2>(lookup, |env| [env.api_key, env.base_url])?
    {
        return Ok(Some(model));
    }
    #[cfg(not(feature = "anthropic"))]
    absent(lookup, "anthropic", &ANTHROPIC_MARKERS)?;
    #[cfg(feature = "gemini")]
    if let Some(model) =
        named::<crate::model::gemini::Gemini, 2>(lookup, |env| [env.api_key, env.base_url])?
    {
        return Ok(Some(model));
    }
    #[cfg(not(feature = "gemini"))]
    absent(lookup, "gemini", &GEMINI_MARKERS)?;
    Ok(None)
}

// The variables that name each provider's model. With its feature on, the provider's own
// `Env` says the same (a test holds them together); without it, they still tell a setting
// the build cannot honour from no setting at all.
#[cfg_attr(feature = "openai", allow(dead_code))]
const OPENAI_MARKERS: [&str; 1] = ["OPENAI_BASE_URL"];
#[cfg_attr(feature = "anthropic", allow(dead_code))]
const ANTHROPIC_MARKERS: [&str; 2] = ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"];
#[cfg_attr(feature = "gemini", allow(dead_code))]
const GEMINI_MARKERS: [&str; 2] = ["GEMINI_API_KEY", "GEMINI_BASE_URL"];

/// Whether any of `markers` is set to something other than blanks.
fn is_named(lookup: &Lookup<'_>, markers: &[&'static str]) -> Option<&'static str> {
    markers
        .iter()
        .copied()
        .find(|name| lookup(name).is_ok_and(|value| !value.trim().is_empty()))
}

/// An error when `markers` name a model of a provider this build lacks (`feature` is off).
#[cfg(not(all(feature = "openai", feature = "anthropic", feature = "gemini")))]
fn absent(
    lookup: &Lookup<'_>,
    feature: &'static str,
    markers: &[&'static str],
) -> Result<(), ModelError> {
    match is_named(lookup, markers) {
        Some(variable) => Err(ModelError::FeatureOff { variable, feature }),
        None => Ok(()),
    }
}

/// How a variable is read: `std::env::var`, or a table in the tests.
type Lookup<'a> = dyn Fn(&str) -> Result<String, std::env::VarError> + 'a;

/// The model of provider `P`, read from its variables, when one of the variables `markers`
/// picks is set to something other than blanks.
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
fn named<P: crate::model::http::Provider, const N: usize>(
    lookup: &Lookup<'_>,
    markers: fn(&crate::model::http::Env) -> [&'static str; N],
) -> Result<Option<Box<dyn ChatModel>>, ModelError> {
    use crate::model::http::HttpModelBuilder;
    if is_named(lookup, &markers(&P::ENV)).is_none() {
        return Ok(None);
    }
    let model = HttpModelBuilder::<P>::from_lookup(lookup)?.build()?;
    Ok(Some(Box::new(model)))
}

// Used by the tests of a build without `openai`, and of one with all three providers.
#[cfg(all(
    test,
    any(
        not(feature = "openai"),
        all(feature = "anthropic", feature = "gemini")
    )
))]
fn described(vars: &[(&str, &str)]) -> Result<Option<String>, ModelError> {
    let lookup = |name: &str| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| (*v).to_owned())
            .ok_or(std::env::VarError::NotPresent)
    };
    Ok(from_lookup(&lookup)?.map(|model| model.description()))
}

/// A build without a provider's feature (tool-sdk's default features have none).
#[cfg(all(test, not(feature = "openai")))]
mod without_openai {
    use super::*;

    #[test]
    fn a_model_the_build_lacks_is_an_error_not_the_fallback() {
        assert_eq!(described(&[]), Ok(None));
        assert_eq!(
            described(&[
                ("OPENAI_BASE_URL", "http://localhost:11434/v1"),
                ("OPENAI_MODEL", "m")
            ]),
            Err(ModelError::FeatureOff {
                variable: "OPENAI_BASE_URL",
                feature: "openai"
            })
        );
        // Blank is not set.
        assert_eq!(described(&[("OPENAI_BASE_URL", " ")]), Ok(None));
    }
}

#[cfg(all(test, feature = "openai", feature = "anthropic", feature = "gemini"))]
mod tests {
    use super::*;

    #[test]
    fn each_providers_markers_are_the_variables_its_env_names() {
        use crate::model::http::sealed::ProviderApi;
        let openai = crate::model::openai::OpenAiCompatible::ENV;
        assert_eq!(OPENAI_MARKERS, [openai.base_url]);
        let anthropic = crate::model::anthropic::Anthropic::ENV;
        assert_eq!(ANTHROPIC_MARKERS, [anthropic.api_key, anthropic.base_url]);
        let gemini = crate::model::gemini::Gemini::ENV;
        assert_eq!(GEMINI_MARKERS, [gemini.api_key, gemini.base_url]);
    }

    #[test]
    fn the_first_provider_the_environment_names_is_used() {
        assert_eq!(described(&[]).unwrap(), None);
        assert_eq!(
            described(&[
                ("OPENAI_BASE_URL", "http://localhost:11434/v1"),
                ("OPENAI_MODEL", "m")
            ])
            .unwrap()
            .as_deref(),
            Some("OpenAI-compatible model m at http://localhost:11434/v1")
        );
        assert_eq!(
            described(&[("ANTHROPIC_API_KEY", "k"), ("ANTHROPIC_MODEL", "claude")])
                .unwrap()
                .as_deref(),
            Some("Anthropic model claude at https://api.anthropic.com")
        );
        assert_eq!(
            described(&[("GEMINI_API_KEY", "k"), ("GEMINI_MODEL", "gemini")])
                .unwrap()
                .as_deref(),
            Some("Gemini model gemini at https://generativelanguage.googleapis.com/v1beta")
        );
    }

    /// A gateway that adds the key itself is named by its base URL alone.
    #[test]
    fn a_keyless_gateway_is_named_by_its_base_url() {
        assert_eq!(
            described(&[
                ("ANTHROPIC_BASE_URL", "http://gw/anthropic"),
                ("ANTHROPIC_MODEL", "c")
            ])
            .unwrap()
            .as_deref(),
            Some("Anthropic model c at http://gw/anthropic")
        );
        assert_eq!(
            described(&[
                ("GEMINI_BASE_URL", "http://gw/v1beta"),
                ("GEMINI_MODEL", "g")
            ])
            .unwrap()
            .as_deref(),
            Some("Gemini model g at http://gw/v1beta")
        );
    }

    /// A configuration that is there but unusable is an error, never a fallback to the next.
    #[test]
    fn an_unusable_configuration_is_an_error() {
        assert!(matches!(
            described(&[
                ("OPENAI_BASE_URL", "http://h/v1"),
                ("ANTHROPIC_API_KEY", "k")
            ]),
            Err(ModelError::MissingEnv {
                name: "OPENAI_MODEL",
                ..
            })
        ));
    }
}
