//! Why a tool could not be added to a registry.

/// Why a tool could not be added to a registry.
///
/// Match it by variant:
///
/// ```
/// use tool_sdk::register::RegistryError;
///
/// let error = tool_sdk::register::validate_name("math.factorial").unwrap_err();
/// assert!(matches!(error, RegistryError::InvalidName { ref name, .. } if name == "math.factorial"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// A tool of that name is registered already.
    #[error("a tool named `{0}` is registered already")]
    DuplicateName(String),

    /// The name is not accepted by providers (`^[a-zA-Z0-9_-]{{1,64}}$`).
    #[error("invalid tool name `{name}`: {reason}")]
    InvalidName {
        /// The refused name.
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },

    /// A dynamic tool's parameters are not a usable JSON Schema object.
    #[error("invalid parameters schema for tool `{tool}` at `{pointer}`: {message}")]
    InvalidSchema {
        /// The tool whose schema was refused.
        tool: String,
        /// JSON pointer into the schema.
        pointer: String,
        /// What is wrong there.
        message: String,
    },

    /// A parameter's schema is not the description its type's compile-time dialect check
    /// judged: the check passed a schema the model is never sent. It happens where `Described`
    /// is derived beside a hand-written `JsonSchema`, which the derive cannot see, or written
    /// by hand to say another schema.
    #[error(
        "the schema of parameter `{parameter}` of tool `{tool}` is not the description of \
         `{rust_type}` its dialect check judged when it was compiled (they part at \
         `{pointer}`), as where `Described` is derived beside a `JsonSchema` written by hand: \
         implement `Described` by hand to say the schema `JsonSchema` gives, or mark the \
         argument `#[arg(unchecked)]` to leave its check to registration"
    )]
    DescriptionMismatch {
        /// The tool.
        tool: String,
        /// The parameter, by its name in the schema.
        parameter: String,
        /// The parameter's Rust type, as written.
        rust_type: String,
        /// Where, in the parameter's schema, the schema and the description first part.
        pointer: String,
    },
}
