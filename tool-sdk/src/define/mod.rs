//! Define: what a tool is. The [`Tool`] trait that `#[tool]`, `#[tools]` and `define_tool!`
//! implement, its [`ToolDefinition`] (name, description, canonical parameters schema, options),
//! the [`ToolContext`] a call receives, how return values become a [`ToolOutput`] (text, JSON,
//! or [`Part`]s: images and files too), and the one
//! classified error of a call, [`ToolError`].
#![doc = include_str!("guide.md")]

pub(crate) mod arguments;
mod catch;
mod context;
mod definition;
mod error;
mod finite;
pub(crate) mod inline;
mod output;
pub(crate) mod output_of;
mod part;
// Public, so that what it holds is compiled, and shared with dependents; in debug builds only,
// the builds that share it. Not API: generated code does not name it either.
#[cfg(debug_assertions)]
#[doc(hidden)]
pub mod primed;
mod progress;
mod schema;
mod tool;
mod toolset;
mod valid;

pub use arguments::{DEFAULT_MAX_ARGUMENTS_BYTES, MAX_ARGUMENTS_DEPTH};
pub(crate) use catch::{panicked, start_caught, CatchPanic};
pub use context::{CallId, FromToolContext, SharedState, State, ToolContext, ToolName};
pub(crate) use definition::Departure;
pub use definition::{Confirm, Defer, ToolDefinition, ToolOptions};
#[cfg(test)]
pub(crate) use error::one_of_each;
pub use error::{ArgumentProblem, ToolError, ToolErrorKind, MAX_NAME_LEN};
pub use inline::InlineTool;
pub(crate) use output::to_json;
pub use output::{IntoToolOutput, Json, UNIT_OUTPUT};
pub use part::{parts_text, Media, Part};
pub use progress::{Progress, ProgressSink, ProgressUpdate};
pub(crate) use schema::parameters_of;
pub use schema::{output_schema, parameters_schema};
pub(crate) use tool::BoxedToolFuture;
pub use tool::{Tool, ToolFuture, ToolOutput, ToolResult};
pub use toolset::ToolSet;
pub(crate) use valid::check_json_schema;
