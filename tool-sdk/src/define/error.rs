//! The one classified error channel of tool calls.

use std::fmt;
use std::time::Duration;

/// What went wrong with a tool call, as data.
///
/// Every variant knows whether, by default, it goes back to the model (which can then correct
/// itself: [`ToolError::is_recoverable`]) and how to say it to the model
/// ([`ToolError::model_message`]); its [`Display`](fmt::Display) is meant for the developer.
/// Tell errors apart by matching the variant.
///
/// # Examples
///
/// ```
/// use tool_sdk::ToolError;
///
/// let error = ToolError::unknown_tool("get_wether", ["get_weather"]);
/// assert!(matches!(
///     &error,
///     ToolError::UnknownTool { suggestions, .. } if suggestions == &["get_weather"]
/// ));
/// assert!(error.is_recoverable());
/// assert!(error.model_message().contains("get_weather"));
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The model asked for a tool that is not registered.
    #[error("unknown tool `{name}`{}", SuggestionList(suggestions))]
    UnknownTool {
        /// The name the model asked for; one longer than the name rule allows is cut to its
        /// first 64 bytes followed by `…`.
        name: String,
        /// Up to three registered names closest to it, closest first.
        suggestions: Vec<String>,
    },

    /// The arguments are JSON, but not what the tool's schema asks for.
    #[error("invalid arguments for tool `{tool}`: {problem}")]
    InvalidArguments {
        /// The tool the arguments were meant for.
        tool: String,
        /// Where and what is wrong (boxed: results stay small on the success path).
        problem: Box<ArgumentProblem>,
    },

    /// The arguments text is not valid JSON.
    #[error("arguments for tool `{tool}` are not valid JSON: {message}")]
    MalformedArguments {
        /// The tool the arguments were meant for.
        tool: String,
        /// What the parser found, with the byte offset into the arguments text.
        message: String,
    },

    /// The arguments are valid JSON but not an object.
    #[error(
        "arguments for tool `{tool}` must be a JSON object, got {}",
        crate::define::arguments::with_article(found)
    )]
    ArgumentsNotObject {
        /// The tool the arguments were meant for.
        tool: String,
        /// The JSON type that came instead (`array`, `string`, `null`, ...).
        found: &'static str,
    },

    /// The arguments text is longer than the registry accepts.
    #[error("arguments for tool `{tool}` are {size} bytes, more than the limit of {limit}")]
    ArgumentsTooLarge {
        /// The tool the arguments were meant for.
        tool: String,
        /// Length of the arguments text in bytes.
        size: usize,
        /// The configured limit in bytes.
        limit: usize,
    },

    /// The arguments nest deeper than the decoder accepts.
    #[error("arguments for tool `{tool}` nest deeper than {limit} levels")]
    ArgumentsTooDeep {
        /// The tool the arguments were meant for.
        tool: String,
        /// The nesting limit.
        limit: usize,
    },

    /// The tool ran and reported a failure (its `Err`).
    #[error("tool `{tool}` failed: {message}")]
    ExecutionFailed {
        /// The tool that failed.
        tool: String,
        /// The failure's message, as the tool's error displays it.
        message: String,
    },

    /// The tool panicked; the panic was caught and the process lives on.
    #[error("tool `{tool}` panicked: {message}")]
    Panicked {
        /// The tool that panicked.
        tool: String,
        /// The panic's payload, when it was a string.
        message: String,
    },

    /// The tool did not finish within its timeout and was stopped.
    #[error("tool `{tool}` timed out after {}", HumanDuration(*after))]
    TimedOut {
        /// The tool that timed out.
        tool: String,
        /// The timeout that elapsed.
        after: Duration,
    },

    /// A context parameter could not be supplied (for example, no shared state of that type).
    #[error("tool `{tool}` could not get its context: {message}")]
    MissingContext {
        /// The tool whose context was incomplete.
        tool: String,
        /// What was missing.
        message: String,
    },
}

/// The kind of a [`ToolError`], without its data: the key of an
/// [`ErrorPolicy`](crate::run::ErrorPolicy), which says before any call what each kind of
/// failed call leads to.
///
/// It is the one payload-free mirror of an error enum the crate keeps, for that reason alone:
/// a policy is a table written when the loop is set up, when there is no error to match, and
/// its keys must be named, compared and hashed (a [`ToolError`] carries strings and a boxed
/// problem, and is not `Eq`). A policy given as a closure over the error would lose what the
/// table has: it is data, it prints ([`Debug`](fmt::Debug)), compares and clones with the
/// loop's options, and each kind's default is written down below. Code that has an error
/// matches the [`ToolError`] itself; nothing turns an error into its kind but the policy
/// ([`ErrorPolicy::action`](crate::run::ErrorPolicy::action) takes the error).
///
/// What each kind leads to by default ([`is_recoverable`](Self::is_recoverable), and the
/// loop's default [`ErrorPolicy`](crate::run::ErrorPolicy), which asks it):
///
/// | kind | by default | why |
/// |---|---|---|
/// | `UnknownTool` | back to the model | it misspelled a name; suggestions help it retry |
/// | `InvalidArguments` | back to the model | it can correct the field the error points at |
/// | `MalformedArguments` | back to the model | it can send valid JSON |
/// | `ArgumentsNotObject` | back to the model | it can send an object |
/// | `ArgumentsTooLarge` | back to the model | it can send less |
/// | `ArgumentsTooDeep` | back to the model | it can nest less |
/// | `ExecutionFailed` | rolls the run back | the tool itself failed: what ran before it is undone |
/// | `Panicked` | rolls the run back | a bug of the application |
/// | `TimedOut` | rolls the run back | the tool did not finish: its effect is unknown |
/// | `MissingContext` | rolls the run back | the application did not supply what the tool needs |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// [`ToolError::UnknownTool`].
    UnknownTool,
    /// [`ToolError::InvalidArguments`].
    InvalidArguments,
    /// [`ToolError::MalformedArguments`].
    MalformedArguments,
    /// [`ToolError::ArgumentsNotObject`].
    ArgumentsNotObject,
    /// [`ToolError::ArgumentsTooLarge`].
    ArgumentsTooLarge,
    /// [`ToolError::ArgumentsTooDeep`].
    ArgumentsTooDeep,
    /// [`ToolError::ExecutionFailed`].
    ExecutionFailed,
    /// [`ToolError::Panicked`].
    Panicked,
    /// [`ToolError::TimedOut`].
    TimedOut,
    /// [`ToolError::MissingContext`].
    MissingContext,
}

impl ToolErrorKind {
    /// Whether an error of this kind goes back to the model by default, so it can correct its
    /// call; otherwise it fails the run, rolling back what ran (see the table on the type). Only
    /// the model's own mistakes (an unknown tool, bad arguments) are recoverable.
    pub fn is_recoverable(self) -> bool {
        matches!(
            self,
            Self::UnknownTool
                | Self::InvalidArguments
                | Self::MalformedArguments
                | Self::ArgumentsNotObject
                | Self::ArgumentsTooLarge
                | Self::ArgumentsTooDeep
        )
    }
}

/// Where arguments break the tool's schema, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentProblem {
    /// JSON pointer to the offending value (`""` for the arguments object itself).
    pub pointer: String,
    /// What the schema expects there.
    pub expected: String,
    /// What came instead, when known.
    pub found: Option<String>,
}

impl fmt::Display for ArgumentProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "at `{at}`: expected {}", self.expected)?;
        if let Some(found) = &self.found {
            write!(f, ", found {found}")?;
        }
        Ok(())
    }
}

impl ToolError {
    /// An [`UnknownTool`](ToolError::UnknownTool) error; a name longer than the name rule allows
    /// is cut (see the variant).
    pub fn unknown_tool(
        name: impl AsRef<str>,
        suggestions: impl IntoIterator<Item = impl AsRef<str>>,
    ) -> Self {
        Self::UnknownTool {
            name: shown_name(name.as_ref()),
            suggestions: suggestions
                .into_iter()
                .map(|suggestion| suggestion.as_ref().to_owned())
                .collect(),
        }
    }

    /// An [`ExecutionFailed`](ToolError::ExecutionFailed) error: what a tool returns for its own
    /// failures.
    pub fn failed(tool: impl Into<String>, message: impl fmt::Display) -> Self {
        Self::ExecutionFailed {
            tool: tool.into(),
            message: message.to_string(),
        }
    }

    /// The kind of this error: its key in an [`ErrorPolicy`](crate::run::ErrorPolicy).
    pub(crate) fn kind(&self) -> ToolErrorKind {
        match self {
            Self::UnknownTool { .. } => ToolErrorKind::UnknownTool,
            Self::InvalidArguments { .. } => ToolErrorKind::InvalidArguments,
            Self::MalformedArguments { .. } => ToolErrorKind::MalformedArguments,
            Self::ArgumentsNotObject { .. } => ToolErrorKind::ArgumentsNotObject,
            Self::ArgumentsTooLarge { .. } => ToolErrorKind::ArgumentsTooLarge,
            Self::ArgumentsTooDeep { .. } => ToolErrorKind::ArgumentsTooDeep,
            Self::ExecutionFailed { .. } => ToolErrorKind::ExecutionFailed,
            Self::Panicked { .. } => ToolErrorKind::Panicked,
            Self::TimedOut { .. } => ToolErrorKind::TimedOut,
            Self::MissingContext { .. } => ToolErrorKind::MissingContext,
        }
    }

    /// Whether this error goes back to the model by default: only the model's own mistakes (an
    /// unknown tool, bad arguments) do (the table on [`ToolErrorKind`] says why for each).
    pub fn is_recoverable(&self) -> bool {
        self.kind().is_recoverable()
    }

    /// The name of the tool the error is about.
    pub fn tool(&self) -> &str {
        match self {
            Self::UnknownTool { name, .. } => name,
            Self::InvalidArguments { tool, .. }
            | Self::MalformedArguments { tool, .. }
            | Self::ArgumentsNotObject { tool, .. }
            | Self::ArgumentsTooLarge { tool, .. }
            | Self::ArgumentsTooDeep { tool, .. }
            | Self::ExecutionFailed { tool, .. }
            | Self::Panicked { tool, .. }
            | Self::TimedOut { tool, .. }
            | Self::MissingContext { tool, .. } => tool,
        }
    }

    /// The text the model sees as the call's result: what went wrong and, where it can, what to
    /// do instead. It never contains internals the model cannot act on (a panic's message stays
    /// in [`Display`](fmt::Display)).
    pub fn model_message(&self) -> String {
        match self {
            Self::UnknownTool { name, suggestions } if suggestions.is_empty() => {
                format!("Error: there is no tool named `{name}`.")
            }
            Self::UnknownTool { name, suggestions } => format!(
                "Error: there is no tool named `{name}`. Did you mean {}?",
                QuotedList(suggestions)
            ),
            Self::InvalidArguments { problem, .. } => {
                format!("Error: invalid arguments {problem}. Correct the arguments and call again.")
            }
            Self::MalformedArguments { message, .. } => {
                format!("Error: the arguments are not valid JSON ({message}). Send a JSON object.")
            }
            Self::ArgumentsNotObject { found, .. } => {
                format!(
                    "Error: the arguments must be a JSON object, not {}.",
                    crate::define::arguments::with_article(found)
                )
            }
            Self::ArgumentsTooLarge { size, limit, .. } => format!(
                "Error: the arguments are {size} bytes; at most {limit} bytes are accepted."
            ),
            Self::ArgumentsTooDeep { limit, .. } => {
                format!("Error: the arguments nest deeper than {limit} levels.")
            }
            Self::ExecutionFailed { message, .. } => format!("Error: {message}"),
            Self::Panicked { .. } => "Error: the tool failed unexpectedly.".to_owned(),
            Self::TimedOut { after, .. } => {
                format!(
                    "Error: the tool did not finish within {}.",
                    HumanDuration(*after)
                )
            }
            Self::MissingContext { .. } => "Error: the tool is not available.".to_owned(),
        }
    }
}

struct SuggestionList<'a>(&'a [String]);

impl fmt::Display for SuggestionList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return Ok(());
        }
        write!(f, " (did you mean {}?)", QuotedList(self.0))
    }
}

struct QuotedList<'a>(&'a [String]);

impl fmt::Display for QuotedList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            match i {
                0 => {}
                i if i + 1 == self.0.len() => f.write_str(" or ")?,
                _ => f.write_str(", ")?,
            }
            write!(f, "`{name}`")?;
        }
        Ok(())
    }
}

struct HumanDuration(Duration);

impl fmt::Display for HumanDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let millis = self.0.as_millis();
        if millis.is_multiple_of(1000) {
            write!(f, "{} s", millis / 1000)
        } else {
            write!(f, "{millis} ms")
        }
    }
}

/// A name as errors show it: as it is when it follows the length rule, else its first
/// [`MAX_NAME_LEN`] bytes (cut on a character boundary) and `…`, so that an error about a
/// hostile name of a megabyte does not carry it back to the model or into logs.
pub(crate) fn shown_name(name: &str) -> String {
    if name.len() <= MAX_NAME_LEN {
        return name.to_owned();
    }
    let mut end = MAX_NAME_LEN;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &name[..end])
}

/// Longest tool name providers accept.
pub const MAX_NAME_LEN: usize = 64;

/// An error of each variant, for tests across the crate.
#[cfg(test)]
pub(crate) fn one_of_each() -> [ToolError; 10] {
    let tool = || "t".to_owned();
    let message = || "m".to_owned();
    [
        ToolError::unknown_tool("t", ["u"]),
        ToolError::InvalidArguments {
            tool: tool(),
            problem: Box::new(ArgumentProblem {
                pointer: "/x".into(),
                expected: "a number".into(),
                found: None,
            }),
        },
        ToolError::MalformedArguments {
            tool: tool(),
            message: message(),
        },
        ToolError::ArgumentsNotObject {
            tool: tool(),
            found: "array",
        },
        ToolError::ArgumentsTooLarge {
            tool: tool(),
            size: 2,
            limit: 1,
        },
        ToolError::ArgumentsTooDeep {
            tool: tool(),
            limit: 1,
        },
        ToolError::failed("t", "m"),
        ToolError::Panicked {
            tool: tool(),
            message: message(),
        },
        ToolError::TimedOut {
            tool: tool(),
            after: Duration::from_secs(1),
        },
        ToolError::MissingContext {
            tool: tool(),
            message: message(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn each_variant_has_its_own_kind_with_its_recoverability() {
        let errors = one_of_each();
        let kinds: HashSet<ToolErrorKind> = errors.iter().map(ToolError::kind).collect();
        assert_eq!(kinds.len(), errors.len(), "{kinds:?}");
        for error in &errors {
            let recoverable = !matches!(
                error,
                ToolError::ExecutionFailed { .. }
                    | ToolError::Panicked { .. }
                    | ToolError::TimedOut { .. }
                    | ToolError::MissingContext { .. }
            );
            assert_eq!(error.is_recoverable(), recoverable, "{error:?}");
        }
    }

    #[test]
    fn shown_names_are_cut_on_a_character_boundary() {
        assert_eq!(shown_name("get_weather"), "get_weather");
        let exact = "a".repeat(MAX_NAME_LEN);
        assert_eq!(shown_name(&exact), exact);
        let long = format!("{}é{}", "a".repeat(MAX_NAME_LEN - 1), "b".repeat(1000));
        assert_eq!(
            shown_name(&long),
            format!("{}…", "a".repeat(MAX_NAME_LEN - 1))
        );
    }
}
