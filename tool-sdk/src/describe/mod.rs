//! Describe: what the model is told of each tool. The canonical parameters schema (made when the
//! tool is defined) is lowered to each provider's dialect, checked in CI, and searched when tools
//! are deferred.
#![doc = include_str!("dialects.md")]
#![doc = include_str!("guide.md")]

mod any_value;
mod ci;
mod dialect;
mod error;
mod lower;
mod lowered;
mod merge;
mod nullable;
mod regex;
mod rule;
mod rules;
pub mod search;
pub(crate) mod shape;
mod walk;

pub(crate) use any_value::objects_for_booleans;
pub use ci::{check_lowering, check_schema_lock, SchemaLockError, WRITE_LOCK_ENV};
pub use dialect::Dialect;
pub(crate) use error::Fault;
pub use error::LoweringError;
pub use lower::lower;
pub(crate) use lowered::{Lowered, LoweredSchemas};
pub use rules::{OPENAI_MAX_DEPTH, OPENAI_MAX_PROPERTIES};
pub use shape::{check_shape, Definition, Described, DescribedKey, Keyword, Shape, ShapeVerdict};

/// Derives [`Described`](trait@Described): a type's JSON Schema as `const` data, so that the
/// tools taking it are checked against the dialects chosen when they are compiled. Derive it
/// beside `JsonSchema`; it reads the same `serde` and `schemars` attributes. See
/// [Checked when compiled](self#checked-when-compiled).
pub use tool_sdk_macros::Described;
