//! How a tool's return value becomes the text the model sees.

use std::borrow::Cow;
use std::fmt::Display;

use serde::Serialize;
use serde_json::Value;

use crate::define::finite::Finite;
use crate::define::{Part, ToolError, ToolOutput, ToolResult};

/// The text `()` results become.
pub const UNIT_OUTPUT: &str = "Success";

/// A value a tool can return.
///
/// `String` and `&str` pass through, `()` becomes `"Success"`, [`Json<T>`] and
/// [`serde_json::Value`] become JSON text, a [`Part`] or a `Vec<Part>` (images, files) an
/// output of parts, and `Result<T, E>` becomes `T`'s output or an
/// [`ExecutionFailed`](ToolError::ExecutionFailed) error carrying `E`'s message. `#[tool]`
/// functions may also return any other `Serialize` type directly; closures of dynamic tools wrap
/// it in [`Json`].
///
/// # Examples
///
/// ```
/// use tool_sdk::define::{IntoToolOutput, Json};
///
/// assert_eq!(().into_tool_output("t").unwrap().content(), "Success");
/// assert_eq!(Json(vec![1, 2]).into_tool_output("t").unwrap().content(), "[1,2]");
/// let failed: Result<String, String> = Err("no seats left".into());
/// assert!(failed.into_tool_output("t").unwrap_err().to_string().contains("no seats left"));
/// ```
pub trait IntoToolOutput {
    /// Converts the value; `tool` names the tool in errors.
    fn into_tool_output(self, tool: &str) -> ToolResult;
}

/// Marks a value to be returned as JSON text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self, _tool: &str) -> ToolResult {
        Ok(self)
    }
}

impl IntoToolOutput for Part {
    fn into_tool_output(self, _tool: &str) -> ToolResult {
        Ok(ToolOutput::from_parts([self]))
    }
}

impl IntoToolOutput for Vec<Part> {
    fn into_tool_output(self, _tool: &str) -> ToolResult {
        Ok(ToolOutput::from_parts(self))
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self, _tool: &str) -> ToolResult {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for &str {
    fn into_tool_output(self, _tool: &str) -> ToolResult {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for Cow<'_, str> {
    fn into_tool_output(self, _tool: &str) -> ToolResult {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for () {
    fn into_tool_output(self, _tool: &str) -> ToolResult {
        Ok(ToolOutput::text(UNIT_OUTPUT))
    }
}

impl IntoToolOutput for Value {
    fn into_tool_output(self, tool: &str) -> ToolResult {
        to_json(&self, tool)
    }
}

impl<T: Serialize> IntoToolOutput for Json<T> {
    fn into_tool_output(self, tool: &str) -> ToolResult {
        to_json(&self.0, tool)
    }
}

impl<T: IntoToolOutput, E: Display> IntoToolOutput for Result<T, E> {
    fn into_tool_output(self, tool: &str) -> ToolResult {
        match self {
            Ok(value) => value.into_tool_output(tool),
            Err(error) => Err(ToolError::failed(tool, error)),
        }
    }
}

/// Serializes a result to JSON text; a value serde cannot write (a map with non-string keys,
/// say) or JSON cannot carry (a NaN or an infinity, which serde_json would write `null`) is
/// the tool's failure, not a crash, in every build.
#[inline]
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T, tool: &str) -> ToolResult {
    serde_json::to_string(&Finite(value))
        .map(ToolOutput::json)
        .map_err(|error| {
            ToolError::failed(tool, format!("could not serialize the result: {error}"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_holding_a_number_json_cannot_carry_is_the_tools_failure() {
        let results = [
            Json(f64::NAN).into_tool_output("t"),
            Json(vec![1.5, f64::INFINITY]).into_tool_output("t"),
            Json(Some((1_u8, f32::NEG_INFINITY))).into_tool_output("t"),
        ];
        for result in results {
            match result {
                Err(ToolError::ExecutionFailed { message, .. }) => {
                    assert!(message.contains("not finite"), "{message}");
                }
                other => panic!("expected the tool's failure, got {other:?}"),
            }
        }
        assert_eq!(
            Json(vec![1.5, -0.0])
                .into_tool_output("t")
                .unwrap()
                .content(),
            "[1.5,-0.0]"
        );
    }
}
