//! Why a tool cannot be described in a dialect.

use crate::describe::Dialect;

/// Why a schema cannot be lowered to a dialect: each variant is a kind of problem, and each
/// carries the tool, the dialect, where ([`pointer`](Self::pointer)) and the rule broken.
///
/// Match it by variant:
///
/// ```
/// use serde_json::json;
/// use tool_sdk::describe::{lower, Dialect, LoweringError};
///
/// let union = json!({"anyOf": [{"type": "object"}, {"type": "string"}]});
/// let error = lower("pick", &union, Dialect::OpenAi).unwrap_err();
/// assert!(matches!(error, LoweringError::Unsupported { ref tool, .. } if tool == "pick"));
/// assert_eq!(error.pointer(), "");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoweringError {
    /// The schema is not a usable JSON Schema: it breaks the meta-schema, its root is not an
    /// object, or a `$ref` leads nowhere. No dialect takes it.
    #[error("tool `{tool}` cannot be described for {dialect:?}: at `{pointer}`: {rule}")]
    Invalid {
        /// The tool.
        tool: String,
        /// The dialect asked for.
        dialect: Dialect,
        /// JSON pointer into the canonical schema.
        pointer: String,
        /// The rule broken.
        rule: String,
    },
    /// Valid JSON Schema that this dialect has no way to say (a root union, a recursive type
    /// where refs cannot stay, a union of types for Gemini, ...). Another dialect may take it.
    #[error("tool `{tool}` cannot be described for {dialect:?}: at `{pointer}`: {rule}")]
    Unsupported {
        /// The tool.
        tool: String,
        /// The dialect asked for.
        dialect: Dialect,
        /// JSON pointer into the canonical schema.
        pointer: String,
        /// The rule broken.
        rule: String,
    },
    /// Past a limit of the dialect (nesting depth, number of properties).
    #[error("tool `{tool}` cannot be described for {dialect:?}: at `{pointer}`: {rule}")]
    TooLarge {
        /// The tool.
        tool: String,
        /// The dialect asked for.
        dialect: Dialect,
        /// JSON pointer into the canonical schema.
        pointer: String,
        /// The rule broken.
        rule: String,
    },
}

impl LoweringError {
    /// The tool whose schema was refused.
    pub fn tool(&self) -> &str {
        match self {
            Self::Invalid { tool, .. }
            | Self::Unsupported { tool, .. }
            | Self::TooLarge { tool, .. } => tool,
        }
    }

    /// The dialect asked for.
    pub fn dialect(&self) -> Dialect {
        match self {
            Self::Invalid { dialect, .. }
            | Self::Unsupported { dialect, .. }
            | Self::TooLarge { dialect, .. } => *dialect,
        }
    }

    /// JSON pointer into the canonical schema, where the rule is broken (`""` for the root).
    pub fn pointer(&self) -> &str {
        match self {
            Self::Invalid { pointer, .. }
            | Self::Unsupported { pointer, .. }
            | Self::TooLarge { pointer, .. } => pointer,
        }
    }

    /// The rule broken, in the words a compile-time check uses too.
    pub fn rule(&self) -> &str {
        match self {
            Self::Invalid { rule, .. }
            | Self::Unsupported { rule, .. }
            | Self::TooLarge { rule, .. } => rule,
        }
    }
}

/// Which variant of [`LoweringError`] a refusal becomes, as the walkers find it before the
/// tool's name and the dialect are known. Internal: users match the error itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// [`LoweringError::Invalid`].
    Invalid,
    /// [`LoweringError::Unsupported`].
    Unsupported,
    /// [`LoweringError::TooLarge`].
    TooLarge,
}

impl Fault {
    /// The error of this fault, for `tool` in `dialect`.
    pub(crate) fn error(
        self,
        tool: &str,
        dialect: Dialect,
        pointer: String,
        rule: String,
    ) -> LoweringError {
        let tool = tool.to_owned();
        match self {
            Self::Invalid => LoweringError::Invalid {
                tool,
                dialect,
                pointer,
                rule,
            },
            Self::Unsupported => LoweringError::Unsupported {
                tool,
                dialect,
                pointer,
                rule,
            },
            Self::TooLarge => LoweringError::TooLarge {
                tool,
                dialect,
                pointer,
                rule,
            },
        }
    }
}

/// Why a schema cannot be lowered, as the walker finds it: the fault, the pointer, the rule
/// (made a [`LoweringError`] with the tool's name and the dialect).
pub(crate) type Refusal = (Fault, String, String);
