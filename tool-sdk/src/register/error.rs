//! Why a tool could not be added to a registry.

/// Why a tool could not be added to a registry.
///
/// ```
/// use tool_sdk::register::RegistryErrorKind;
///
/// let error = tool_sdk::register::validate_name("math.factorial").unwrap_err();
/// assert_eq!(error.kind(), RegistryErrorKind::InvalidName);
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
}

/// The classes of [`RegistryError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RegistryErrorKind {
    /// The name is taken.
    DuplicateName,
    /// The name breaks the rule providers share.
    InvalidName,
    /// A dynamic tool's parameters are not a usable JSON Schema object.
    InvalidSchema,
}

impl RegistryError {
    /// Which class of error this is.
    pub fn kind(&self) -> RegistryErrorKind {
        match self {
            Self::DuplicateName(_) => RegistryErrorKind::DuplicateName,
            Self::InvalidName { .. } => RegistryErrorKind::InvalidName,
            Self::InvalidSchema { .. } => RegistryErrorKind::InvalidSchema,
        }
    }
}
