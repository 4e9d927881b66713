//! Why a tool cannot be described in a dialect.

use crate::describe::Dialect;

/// Why a schema cannot be lowered to a dialect: the tool, where, the rule it breaks, and which
/// [kind](LoweringErrorKind) of problem that is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool `{tool}` cannot be described for {dialect:?}: at `{pointer}`: {rule}")]
#[non_exhaustive]
pub struct LoweringError {
    /// What kind of problem it is.
    pub kind: LoweringErrorKind,
    /// The tool.
    pub tool: String,
    /// The dialect asked for.
    pub dialect: Dialect,
    /// JSON pointer into the canonical schema.
    pub pointer: String,
    /// The rule broken.
    pub rule: String,
}

/// The classes of [`LoweringError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoweringErrorKind {
    /// The schema is not a usable JSON Schema: it breaks the meta-schema, its root is not an
    /// object, or a `$ref` leads nowhere. No dialect takes it.
    Invalid,
    /// Valid JSON Schema that this dialect has no way to say (a root union, a recursive type
    /// where refs cannot stay, a union of types for Gemini, ...). Another dialect may take it.
    Unsupported,
    /// Past a limit of the dialect (nesting depth, number of properties).
    TooLarge,
}

/// Why a schema cannot be lowered, as the walker finds it: the kind, the pointer, the rule
/// (made a [`LoweringError`] with the tool's name and the dialect).
pub(crate) type Refusal = (LoweringErrorKind, String, String);

impl LoweringError {
    /// What kind of problem it is.
    pub fn kind(&self) -> LoweringErrorKind {
        self.kind
    }
}
