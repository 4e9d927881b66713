//! The registry: tools by name, in the order they were added, and dispatch of calls to them.

use std::fmt;
use std::sync::Arc;

use crate::define::{
    SharedState, Tool, ToolContext, ToolDefinition, ToolError, ToolSet, DEFAULT_MAX_ARGUMENTS_BYTES,
};
use crate::register::name_index::NameIndex;
use crate::register::output_check::OutputCheck;
use crate::register::slot::Slot;
use crate::register::{validate_name, CallFuture, RegistryError};

/// Tools by name, in insertion order, and the one place their calls go through.
///
/// A call is checked (size of the arguments, known tool), dispatched, guarded against panics and,
/// when the tool declares one, its timeout; whatever goes wrong comes back as a classified
/// [`ToolError`].
///
/// # Examples
///
/// ```
/// use tool_sdk::{tool, ToolRegistry};
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// # tokio_test();
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn tokio_test() {
/// let mut registry = ToolRegistry::new();
/// registry.register(AddTool).unwrap();
/// let output = registry.call("add", r#"{"a": 2, "b": 3}"#).await.unwrap();
/// assert_eq!(output.content(), "5");
///
/// let error = registry.call("addd", "{}").await.unwrap_err();
/// assert!(error.model_message().contains("`add`"));
/// # }
/// ```
pub struct ToolRegistry {
    /// In insertion order, for listing.
    tools: Vec<Arc<dyn Tool>>,
    /// By name, with what a call needs at hand, so dispatch is one lookup.
    index: NameIndex<Slot>,
    state: SharedState,
    max_arguments_bytes: usize,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolRegistry {
    /// An empty registry with the default limits.
    pub fn new() -> Self {
        Self {
            tools: Vec::new(),
            index: NameIndex::default(),
            state: SharedState::new(),
            max_arguments_bytes: DEFAULT_MAX_ARGUMENTS_BYTES,
        }
    }

    /// Sets the longest arguments text accepted, in bytes (default 1 MiB). Longer arguments get
    /// [`ToolError::ArgumentsTooLarge`] before any parsing.
    pub fn with_max_arguments_bytes(mut self, limit: usize) -> Self {
        self.max_arguments_bytes = limit;
        self
    }

    /// Adds shared state that tools receive through a `#[context] State<T>` parameter.
    pub fn insert_state<T: Send + Sync + 'static>(&mut self, value: T) -> &mut Self {
        self.state.insert(value);
        self
    }

    /// Adds shared state the application keeps a handle to.
    pub fn insert_state_arc<T: Send + Sync + 'static>(&mut self, value: Arc<T>) -> &mut Self {
        self.state.insert_arc(value);
        self
    }

    /// An empty registry with this one's shared state and argument limit: where tools that
    /// arrive later (from a provider) are kept, so they run as if registered here.
    pub(crate) fn empty_sibling(&self) -> Self {
        Self {
            tools: Vec::new(),
            index: NameIndex::default(),
            state: self.state.clone(),
            max_arguments_bytes: self.max_arguments_bytes,
        }
    }

    /// Adds a tool. Its name must follow the provider rule ([`validate_name`]) and be new here.
    pub fn register(&mut self, tool: impl Tool + 'static) -> Result<&mut Self, RegistryError> {
        self.register_arc(Arc::new(tool))
    }

    /// Adds a tool that is shared already.
    ///
    /// In debug builds a tool that declares an output schema is refused when the schema does
    /// not compile, and what it returns is checked against it (see
    /// [`call_with`](Self::call_with)).
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> Result<&mut Self, RegistryError> {
        let name = tool.definition().name.as_str();
        validate_name(name)?;
        if self.index.contains(name) {
            return Err(RegistryError::DuplicateName(name.to_owned()));
        }
        let output = admitted(tool.definition())?;
        self.insert(tool, output);
        Ok(self)
    }

    /// Adds a tool whose name was checked.
    fn insert(&mut self, tool: Arc<dyn Tool>, output: OutputCheck) {
        let name = tool.definition().name.as_str();
        let slot = Slot {
            name: name.into(),
            tool: Arc::clone(&tool),
            timeout: tool.definition().options.timeout,
            output,
        };
        self.index.insert(name, slot);
        self.tools.push(tool);
    }

    /// Adds every tool of a `#[tools]` impl block, all sharing `set`. Nothing is added when one
    /// of them is refused.
    pub fn register_set<S: ToolSet>(&mut self, set: Arc<S>) -> Result<&mut Self, RegistryError> {
        let tools = set.tools();
        let mut names = Vec::with_capacity(tools.len());
        let mut outputs = Vec::with_capacity(tools.len());
        for tool in &tools {
            let name = tool.definition().name.as_str();
            validate_name(name)?;
            if self.index.contains(name) || names.contains(&name) {
                return Err(RegistryError::DuplicateName(name.to_owned()));
            }
            names.push(name);
            outputs.push(admitted(tool.definition())?);
        }
        for (tool, output) in tools.into_iter().zip(outputs) {
            self.insert(tool, output);
        }
        Ok(self)
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.index.get(name).map(|slot| &slot.tool)
    }

    /// Whether a tool of that name is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains(name)
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools, in insertion order.
    pub(crate) fn tools(&self) -> impl ExactSizeIterator<Item = &Arc<dyn Tool>> + '_ {
        self.tools.iter()
    }

    /// The tools' definitions, in the order they were added. Borrowed: nothing is cloned.
    pub fn definitions(&self) -> impl ExactSizeIterator<Item = &ToolDefinition> + '_ {
        self.tools.iter().map(|tool| tool.definition())
    }

    /// The tools' names, in the order they were added.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.definitions().map(|d| d.name.as_str())
    }

    /// Calls a tool with no call id and no cancellation.
    #[inline]
    pub fn call<'a>(&'a self, name: &str, arguments: &'a str) -> CallFuture<'a> {
        self.call_with(name, arguments, ToolContext::new())
    }

    /// Calls a tool with a context (call id, cancellation, state). Shared state given in the
    /// context replaces the registry's own for this call.
    ///
    /// Nothing runs until the future is first polled: then a synchronous tool runs to its end,
    /// and an `async` one runs as the future is polled.
    ///
    /// In debug builds (tests included), the structured output
    /// ([`ToolOutput::structured`](crate::define::ToolOutput::structured)) of a tool that
    /// declares an [output schema](crate::define::ToolDefinition::output_schema) is checked
    /// against it: output that does not fit is the tool's failure
    /// ([`ToolError::ExecutionFailed`]), naming where, and a `tracing` error.
    #[inline]
    pub fn call_with<'a>(
        &'a self,
        name: &str,
        arguments: &'a str,
        context: ToolContext<'a>,
    ) -> CallFuture<'a> {
        let Some(slot) = self.index.get(name) else {
            return self.refused(name, arguments);
        };
        let tool_name: &str = &slot.name;
        if arguments.len() > self.max_arguments_bytes {
            return self.refused(tool_name, arguments);
        }
        let mut context = context.with_tool_name(tool_name);
        if context.state().is_none() {
            context = context.with_state(&self.state);
        }
        CallFuture::pending(slot, arguments, context)
    }

    /// The call of `name` with `arguments` that [`check`](Self::check) refuses (an unknown
    /// tool, arguments too large), answered with its error: out of line, so that what every
    /// call runs stays small enough to be inlined where it is made.
    #[cold]
    #[inline(never)]
    fn refused<'a>(&self, name: &str, arguments: &str) -> CallFuture<'a> {
        let error = match self.check_size(name, arguments) {
            Err(error) => error,
            // Only a call `check_size` refuses comes here; were another to, it fails whole.
            Ok(slot) => ToolError::failed(&*slot.name, "the tool call could not start"),
        };
        CallFuture::done(Err(error))
    }

    /// Checks a call of `name` with `arguments` as [`call_with`](Self::call_with) would before
    /// the tool starts, without running anything: the tool is registered, the arguments are
    /// within the size limit, and they decode ([`Tool::check_arguments`]). `Err` is the error
    /// the call would fail with. What asks a person checks first: a call that cannot run is
    /// answered with its error, never asked about.
    pub fn check(&self, name: &str, arguments: &str) -> Result<(), ToolError> {
        self.check_size(name, arguments)?
            .tool
            .check_arguments(arguments)
    }

    /// The slot of `name`, when it is registered and `arguments` are within the size limit.
    fn check_size(&self, name: &str, arguments: &str) -> Result<&Slot, ToolError> {
        let Some(slot) = self.index.get(name) else {
            return Err(self.unknown_tool(name));
        };
        if arguments.len() > self.max_arguments_bytes {
            return Err(ToolError::ArgumentsTooLarge {
                tool: slot.name.to_string(),
                size: arguments.len(),
                limit: self.max_arguments_bytes,
            });
        }
        Ok(slot)
    }

    /// The error for a name nobody registered, with the closest registered names.
    pub fn unknown_tool(&self, name: &str) -> ToolError {
        ToolError::unknown_tool(name, crate::register::suggest::closest(name, self.names()))
    }
}

/// What registration asks of a tool's definition beside its name: parameters that are what
/// its compile-time check judged, and an output schema that compiles (debug builds), whose
/// check it returns.
fn admitted(definition: &ToolDefinition) -> Result<OutputCheck, RegistryError> {
    if let Some(departure) = definition.departure() {
        return Err(RegistryError::DescriptionMismatch {
            tool: definition.name.clone(),
            parameter: departure.parameter.clone(),
            rust_type: departure.rust_type.clone(),
            pointer: departure.pointer.clone(),
        });
    }
    OutputCheck::of(definition)
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("state", &self.state)
            .field("max_arguments_bytes", &self.max_arguments_bytes)
            .finish()
    }
}
