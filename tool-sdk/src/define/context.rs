//! What a tool can learn about its call besides its arguments: the call id, its own name, the
//! run's cancellation token, where its progress goes, and shared state. Parameters marked `#[context]` receive these and
//! are never part of the schema.

use std::any::{type_name, Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::define::{Progress, ProgressSink, ToolError};

/// The circumstances of one tool call, borrowed from whoever makes the call.
///
/// Building one allocates nothing; a tool takes out what it needs through
/// [`FromToolContext`].
///
/// # Examples
///
/// ```
/// use tool_sdk::{define::SharedState, ToolContext};
///
/// let mut state = SharedState::new();
/// state.insert(42_u32);
/// let context = ToolContext::new().with_call_id("call_1").with_state(&state);
/// assert_eq!(context.call_id(), Some("call_1"));
/// ```
#[derive(Clone, Copy, Default)]
pub struct ToolContext<'a> {
    call_id: Option<&'a str>,
    tool_name: &'a str,
    cancellation: Option<&'a CancellationToken>,
    state: Option<&'a SharedState>,
    progress: Option<&'a Arc<dyn ProgressSink>>,
}

impl<'a> ToolContext<'a> {
    /// An empty context: no call id, no cancellation, no state.
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the id the model gave the call.
    pub fn with_call_id(mut self, call_id: &'a str) -> Self {
        self.call_id = Some(call_id);
        self
    }

    /// Sets the name of the tool being called (the registry does this).
    #[inline]
    pub fn with_tool_name(mut self, tool_name: &'a str) -> Self {
        self.tool_name = tool_name;
        self
    }

    /// Sets the token that is cancelled when the run is.
    pub fn with_cancellation(mut self, token: &'a CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// Sets the shared state tools take [`State`] from.
    #[inline]
    pub fn with_state(mut self, state: &'a SharedState) -> Self {
        self.state = Some(state);
        self
    }

    /// Sets where the call's [`Progress`](crate::define::Progress) reports go.
    #[inline]
    pub fn with_progress(mut self, sink: &'a Arc<dyn ProgressSink>) -> Self {
        self.progress = Some(sink);
        self
    }

    /// The id the model gave the call, if any.
    pub fn call_id(&self) -> Option<&'a str> {
        self.call_id
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &'a str {
        self.tool_name
    }

    /// The run's cancellation token, if the caller gave one.
    pub fn cancellation(&self) -> Option<&'a CancellationToken> {
        self.cancellation
    }

    /// The shared state, if the caller gave any.
    #[inline]
    pub fn state(&self) -> Option<&'a SharedState> {
        self.state
    }

    /// Where progress reports go, if the caller listens.
    #[inline]
    pub fn progress(&self) -> Option<&'a Arc<dyn ProgressSink>> {
        self.progress
    }
}

impl fmt::Debug for ToolContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("tool_name", &self.tool_name)
            .field("cancellation", &self.cancellation)
            .field("state", &self.state)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// A value a tool parameter marked `#[context]` can be built from.
///
/// Implemented for [`CallId`], [`ToolName`], [`CancellationToken`],
/// [`Progress`](crate::define::Progress) and [`State<T>`]; implement it for your own types to
/// hand tools something derived from the context.
///
/// # Examples
///
/// ```
/// use tool_sdk::{define::{CallId, State}, tool};
///
/// struct Greeting {
///     word: String,
/// }
///
/// /// Greets a person.
/// #[tool]
/// fn greet(name: String, #[context] greeting: State<Greeting>, #[context] id: CallId) -> String {
///     format!("{} {name} ({})", greeting.word, id.0.unwrap_or_default())
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[context]` parameter",
    label = "not a tool context type",
    note = "context parameters are `CallId`, `ToolName`, `CancellationToken`, `Progress`, `State<T>`, or a type implementing `FromToolContext`"
)]
pub trait FromToolContext: Sized {
    /// Takes the value out of the context, or says what is missing.
    fn from_tool_context(context: &ToolContext<'_>) -> Result<Self, ToolError>;
}

/// The id the model gave the call (`None` when it gave none, as Gemini does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallId(pub Option<String>);

impl FromToolContext for CallId {
    fn from_tool_context(context: &ToolContext<'_>) -> Result<Self, ToolError> {
        Ok(Self(context.call_id.map(str::to_owned)))
    }
}

/// Where the call's progress goes: the context's sink, or nowhere.
impl FromToolContext for Progress {
    fn from_tool_context(context: &ToolContext<'_>) -> Result<Self, ToolError> {
        Ok(match context.progress {
            Some(sink) => Progress::to(sink, context.tool_name, context.call_id),
            None => Progress::ignored(),
        })
    }
}

/// The name under which the tool was called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolName(pub String);

impl FromToolContext for ToolName {
    fn from_tool_context(context: &ToolContext<'_>) -> Result<Self, ToolError> {
        Ok(Self(context.tool_name.to_owned()))
    }
}

impl FromToolContext for CancellationToken {
    /// The run's token, or a token nobody cancels when the caller gave none.
    fn from_tool_context(context: &ToolContext<'_>) -> Result<Self, ToolError> {
        Ok(context.cancellation.cloned().unwrap_or_default())
    }
}

/// Shared state of type `T`, taken from the [`SharedState`] the registry (or caller) holds.
///
/// Cloning is cheap: the value lives behind an [`Arc`].
pub struct State<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

impl<T: Send + Sync + 'static> FromToolContext for State<T> {
    fn from_tool_context(context: &ToolContext<'_>) -> Result<Self, ToolError> {
        context
            .state
            .and_then(SharedState::get::<T>)
            .map(State)
            .ok_or_else(|| ToolError::MissingContext {
                tool: context.tool_name.to_owned(),
                message: format!(
                    "no shared state of type `{}`; add it with `ToolRegistry::insert_state`",
                    type_name::<T>()
                ),
            })
    }
}

/// Values of distinct types shared with every tool call, looked up by type.
///
/// # Examples
///
/// ```
/// let mut state = tool_sdk::define::SharedState::new();
/// state.insert(String::from("hello"));
/// assert_eq!(state.get::<String>().as_deref().map(String::as_str), Some("hello"));
/// assert!(state.get::<u8>().is_none());
/// ```
#[derive(Default, Clone)]
pub struct SharedState {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl SharedState {
    /// An empty set of values.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a value, replacing any earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.insert_arc(Arc::new(value));
    }

    /// Adds a value already behind an [`Arc`], so the application keeps a handle to it.
    pub fn insert_arc<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.values.insert(TypeId::of::<T>(), value);
    }

    /// The value of type `T`, if one was added.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let value = Arc::clone(self.values.get(&TypeId::of::<T>())?);
        value.downcast::<T>().ok()
    }
}

impl fmt::Debug for SharedState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedState")
            .field("values", &self.values.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::define::ProgressUpdate;

    struct Kept(Mutex<Vec<(String, Option<String>, f64)>>);

    impl ProgressSink for Kept {
        fn progress(&self, tool: &str, call_id: Option<&str>, update: ProgressUpdate) {
            let mut kept = self.0.lock().unwrap();
            kept.push((tool.to_owned(), call_id.map(str::to_owned), update.done));
        }
    }

    #[test]
    fn progress_goes_to_the_contexts_sink_named_by_its_tool_and_call() {
        let kept = Arc::new(Kept(Mutex::new(Vec::new())));
        let sink: Arc<dyn ProgressSink> = kept.clone();
        let context = ToolContext::new()
            .with_tool_name("copy")
            .with_call_id("c1")
            .with_progress(&sink);
        let progress = Progress::from_tool_context(&context).unwrap();
        progress.report(2.0, None, None);
        let kept = kept.0.lock().unwrap();
        assert_eq!(*kept, [("copy".to_owned(), Some("c1".to_owned()), 2.0)]);

        let unheard = Progress::from_tool_context(&ToolContext::new()).unwrap();
        assert!(!unheard.is_listened_to());
    }
}
