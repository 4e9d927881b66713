//! The registry: tools by name, in the order they were added, and dispatch of calls to them.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::define::{
    SharedState, Tool, ToolContext, ToolDefinition, ToolError, ToolSet, DEFAULT_MAX_ARGUMENTS_BYTES,
};
use crate::register::name_index::NameIndex;
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

struct Slot {
    name: Box<str>,
    tool: Arc<dyn Tool>,
    timeout: Option<Duration>,
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
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> Result<&mut Self, RegistryError> {
        let name = tool.definition().name.as_str();
        validate_name(name)?;
        if self.index.contains(name) {
            return Err(RegistryError::DuplicateName(name.to_owned()));
        }
        let slot = Slot {
            name: name.into(),
            tool: Arc::clone(&tool),
            timeout: tool.definition().options.timeout,
        };
        self.index.insert(name, slot);
        self.tools.push(tool);
        Ok(self)
    }

    /// Adds every tool of a `#[tools]` impl block, all sharing `set`. Nothing is added when one
    /// of them is refused.
    pub fn register_set<S: ToolSet>(&mut self, set: Arc<S>) -> Result<&mut Self, RegistryError> {
        let tools = set.tools();
        let mut names = Vec::with_capacity(tools.len());
        for tool in &tools {
            let name = tool.definition().name.as_str();
            validate_name(name)?;
            if self.index.contains(name) || names.contains(&name) {
                return Err(RegistryError::DuplicateName(name.to_owned()));
            }
            names.push(name);
        }
        for tool in tools {
            self.register_arc(tool)?;
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
    #[inline]
    pub fn call_with<'a>(
        &'a self,
        name: &str,
        arguments: &'a str,
        context: ToolContext<'a>,
    ) -> CallFuture<'a> {
        let Some(slot) = self.index.get(name) else {
            return CallFuture::done(Err(self.unknown_tool(name)));
        };
        let tool_name: &str = &slot.name;
        if arguments.len() > self.max_arguments_bytes {
            return CallFuture::done(Err(ToolError::ArgumentsTooLarge {
                tool: tool_name.to_owned(),
                size: arguments.len(),
                limit: self.max_arguments_bytes,
            }));
        }
        let mut context = context.with_tool_name(tool_name);
        if context.state().is_none() {
            context = context.with_state(&self.state);
        }
        CallFuture::pending(&*slot.tool, tool_name, arguments, context, slot.timeout)
    }

    /// The error for a name nobody registered, with the closest registered names.
    pub fn unknown_tool(&self, name: &str) -> ToolError {
        ToolError::unknown_tool(name, crate::register::suggest::closest(name, self.names()))
    }
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
