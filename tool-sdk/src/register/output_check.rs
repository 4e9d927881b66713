//! In debug builds (tests included), what a tool returns is checked against the output schema
//! its definition declares: a `Serialize` impl written by hand, or a `#[serde(...)]` attribute
//! schemars reads otherwise, is found where it happens rather than by a client that
//! validates. An MCP server's result that strays from its `outputSchema` is only logged: it is
//! another program's, and passes as in a release build. Release builds check nothing here and
//! pay nothing: the check has no size there, and a call carries nothing for it. A number JSON
//! cannot carry (NaN, an infinity) is refused in every build when the result is serialized
//! (`define::finite`), where it costs no second walk. The check is the `jsonschema` crate's:
//! a build without the `dynamic` feature, which brings it, checks nothing here either.

use std::fmt;

#[cfg(all(feature = "dynamic", debug_assertions))]
use crate::define::ToolError;
use crate::define::{ToolDefinition, ToolResult};
use crate::register::RegistryError;

/// The compiled output schema of one tool, in a debug build; in a release build nothing, of
/// no size, whose check hands the result on.
pub(crate) struct OutputCheck {
    #[cfg(all(feature = "dynamic", debug_assertions))]
    validator: Option<jsonschema::Validator>,
}

impl OutputCheck {
    /// The check of `definition`'s output schema: none without one, and in release builds.
    /// A schema that does not compile is refused, naming where it is wrong.
    #[cfg(not(all(feature = "dynamic", debug_assertions)))]
    pub(crate) fn of(definition: &ToolDefinition) -> Result<Self, RegistryError> {
        let _ = definition;
        Ok(Self {})
    }

    /// The check of `definition`'s output schema: none without one, and in release builds.
    /// A schema that does not compile is refused, naming where it is wrong.
    #[cfg(all(feature = "dynamic", debug_assertions))]
    pub(crate) fn of(definition: &ToolDefinition) -> Result<Self, RegistryError> {
        let Some(schema) = &definition.output_schema else {
            return Ok(Self { validator: None });
        };
        let invalid = |pointer: String, message: String| RegistryError::InvalidSchema {
            tool: definition.name.clone(),
            pointer,
            message: format!("in the output schema: {message}"),
        };
        crate::define::check_json_schema(schema)
            .map_err(|problem| invalid(problem.pointer, problem.message))?;
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(schema)
            .map_err(|error| invalid(error.instance_path().to_string(), error.to_string()))?;
        Ok(Self {
            validator: Some(validator),
        })
    }

    /// `result` as it is: a release build checks nothing.
    #[cfg(not(all(feature = "dynamic", debug_assertions)))]
    #[inline(always)]
    pub(crate) fn check(&self, tool: &str, result: ToolResult) -> ToolResult {
        let _ = tool;
        result
    }

    /// `result`, or, when its structured output does not fit the schema, the tool's failure
    /// saying where and how.
    #[cfg(all(feature = "dynamic", debug_assertions))]
    pub(crate) fn check(&self, tool: &str, result: ToolResult) -> ToolResult {
        let Some(validator) = &self.validator else {
            return result;
        };
        let Ok(output) = &result else {
            return result;
        };
        let Some(structured) = output.structured() else {
            return result;
        };
        let Some(error) = validator.iter_errors(&structured).next() else {
            return result;
        };
        let pointer = error.instance_path().to_string();
        if output.structured_is_given() {
            // Another program's output (an MCP server's `structuredContent`): not this
            // tool's bug, and a release build would pass it on; so does this one, saying so.
            tracing::warn!(
                tool,
                pointer,
                %error,
                "a consumed tool's output does not fit the output schema its server listed"
            );
            return result;
        }
        tracing::error!(
            tool,
            pointer,
            %error,
            "a tool's output does not fit its output schema"
        );
        Err(ToolError::failed(
            tool,
            format!(
                "the tool's output does not fit its output schema at `{}`: {error}",
                if pointer.is_empty() { "/" } else { &pointer }
            ),
        ))
    }
}

impl fmt::Debug for OutputCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputCheck").finish_non_exhaustive()
    }
}
