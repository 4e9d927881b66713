//! What a tool tells the world about itself: name, description, parameters schema and options.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// A tool as a model sees it, plus the options the runtime honours.
///
/// `parameters` is the canonical JSON Schema (2020-12) of the arguments object; provider
/// dialects are lowered from it. A definition is built once per tool and then borrowed.
///
/// # Examples
///
/// ```
/// use tool_sdk::{tool, Tool};
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let definition = AddTool.definition();
/// assert_eq!(definition.name, "add");
/// assert_eq!(definition.description, "Adds two numbers.");
/// assert_eq!(definition.parameters["required"], serde_json::json!(["a", "b"]));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The name the model calls the tool by (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
    /// JSON Schema (2020-12) of what the tool returns, when its return type has one: `#[tool]`
    /// and `define_tool!` give it to a tool returning [`Json<T>`](crate::define::Json) or
    /// another `Serialize` type whose `T: JsonSchema` (`Result<T, E>` too). Text, `()`,
    /// [`Value`] and parts have none. MCP lists it as `outputSchema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// How the runtime treats the tool; not sent to the model.
    #[serde(skip)]
    pub options: ToolOptions,
    /// Where `parameters` departs from the descriptions the compile-time dialect check judged
    /// (`Described` derived beside a hand-written `JsonSchema`): registration refuses the tool.
    #[serde(skip)]
    pub(crate) departure: Option<Departure>,
}

/// A parameter whose schema is not the description its type's compile-time check judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Departure {
    /// The parameter, by its name in the schema.
    pub(crate) parameter: String,
    /// Its Rust type, as written.
    pub(crate) rust_type: String,
    /// Where, in the parameter's schema, the two first part.
    pub(crate) pointer: String,
}

impl ToolDefinition {
    /// A definition with default options.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters,
            output_schema: None,
            options: ToolOptions::default(),
            departure: None,
        }
    }

    /// The same definition declaring the schema of its output (see
    /// [`output_schema`](Self::output_schema)); `None` declares none.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_sdk::define::{output_schema, ToolDefinition};
    ///
    /// let definition = ToolDefinition::new("count", "Counts.", json!({"type": "object"}))
    ///     .with_output_schema(Some(output_schema::<u32>()));
    /// assert_eq!(definition.output_schema.unwrap()["type"], "integer");
    /// ```
    pub fn with_output_schema(mut self, schema: Option<Value>) -> Self {
        self.output_schema = schema;
        self
    }

    /// The same definition with other options.
    pub fn with_options(mut self, options: ToolOptions) -> Self {
        self.options = options;
        self
    }

    /// The same definition, marked as departing from the descriptions its compile-time check
    /// judged.
    pub(crate) fn departing(mut self, departure: Departure) -> Self {
        self.departure = Some(departure);
        self
    }

    /// Where the definition departs from the descriptions its compile-time check judged.
    pub(crate) fn departure(&self) -> Option<&Departure> {
        self.departure.as_ref()
    }
}

/// Options a tool declares (`#[tool(timeout = "5s", return_direct)]`), carried in its
/// definition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolOptions {
    /// Stop the call with [`ToolError::TimedOut`](crate::define::ToolError::TimedOut) after this long.
    pub timeout: Option<Duration>,
    /// The tool's result is the run's answer: it goes to the caller, not back to the model.
    pub return_direct: bool,
    /// The tool may replace a built-in tool of the same name in a host that has one.
    pub overrides_built_in: bool,
    /// A host may run the tool without asking for permission.
    pub skip_permission: bool,
    /// Whether the definition is sent up front or only once a search finds it.
    pub defer: Defer,
    /// Whether a person must allow a call before it runs.
    pub confirm: Confirm,
    /// Whether the tool declares a compensating action that rolls a successful call back
    /// ([`Tool::compensate`](crate::define::Tool::compensate)).
    pub compensable: bool,
    /// The tool only reads: it changes nothing in its environment. A hint for hosts (MCP's
    /// `readOnlyHint`), not enforced.
    pub read_only: bool,
    /// Whether the tool's changes may destroy or overwrite something (`Some(true)`), or only
    /// add (`Some(false)`); `None` when the tool does not say. A hint for hosts (MCP's
    /// `destructiveHint`), not enforced; meaningless for a [`read_only`](Self::with_read_only) tool.
    pub destructive: Option<bool>,
    /// The tool's work outlasts a request (a report, a migration, a long download): an MCP
    /// server serves its calls as tasks to clients that take them, which poll for the result
    /// instead of holding a request open.
    pub long_running: bool,
    /// Bytes of a call's result the model reads, before the run's own limit
    /// ([`LoopOptions::result_limit`](crate::run::LoopOptions::result_limit)); `None` to take
    /// the run's (`#[tool(result_limit = 4096)]`).
    pub result_limit: Option<usize>,
}

impl ToolOptions {
    /// Options with every flag off and no timeout.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`timeout`](Self::with_timeout).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets [`return_direct`](Self::with_return_direct).
    pub fn with_return_direct(mut self, on: bool) -> Self {
        self.return_direct = on;
        self
    }

    /// Sets [`overrides_built_in`](Self::with_overrides_built_in).
    pub fn with_overrides_built_in(mut self, on: bool) -> Self {
        self.overrides_built_in = on;
        self
    }

    /// Sets [`skip_permission`](Self::with_skip_permission).
    pub fn with_skip_permission(mut self, on: bool) -> Self {
        self.skip_permission = on;
        self
    }

    /// Sets [`defer`](Self::with_defer).
    pub fn with_defer(mut self, defer: Defer) -> Self {
        self.defer = defer;
        self
    }

    /// Sets [`confirm`](Self::with_confirm).
    pub fn with_confirm(mut self, confirm: Confirm) -> Self {
        self.confirm = confirm;
        self
    }

    /// Sets [`compensable`](Self::with_compensable).
    pub fn with_compensable(mut self, on: bool) -> Self {
        self.compensable = on;
        self
    }

    /// Sets [`long_running`](Self::with_long_running).
    pub fn with_long_running(mut self, on: bool) -> Self {
        self.long_running = on;
        self
    }

    /// Sets [`read_only`](Self::with_read_only).
    pub fn with_read_only(mut self, on: bool) -> Self {
        self.read_only = on;
        self
    }

    /// Sets [`result_limit`](Self::with_result_limit).
    pub fn with_result_limit(mut self, bytes: usize) -> Self {
        self.result_limit = Some(bytes);
        self
    }

    /// Sets [`destructive`](Self::with_destructive).
    pub fn with_destructive(mut self, on: bool) -> Self {
        self.destructive = Some(on);
        self
    }
}

/// Whether a call of the tool waits for a person's decision before it runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Confirm {
    /// Calls run without asking.
    #[default]
    Never,
    /// Every call waits for a decision (`#[tool(confirm)]`).
    Always,
    /// A predicate over the call's typed arguments decides (`#[tool(confirm = predicate)]`);
    /// see [`Tool::needs_confirmation`](crate::define::Tool::needs_confirmation).
    WhenPredicate,
}

/// When a tool's definition is sent to the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Defer {
    /// Always sent up front.
    #[default]
    Never,
    /// Sent only after a tool search found it.
    Always,
    /// Deferred when the registry holds more tools than a threshold.
    Auto,
}
