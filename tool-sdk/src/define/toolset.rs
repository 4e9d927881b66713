//! A group of tools sharing one instance: what `#[tools]` generates for an impl block.

use std::sync::Arc;

use crate::define::Tool;

/// A type whose methods are tools; `#[tools]` on its impl block implements this.
///
/// Every tool of the set holds the same `Arc<Self>`, so they share the instance's state.
///
/// # Examples
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use tool_sdk::{tools, ToolRegistry};
///
/// #[derive(Default)]
/// struct Counter {
///     value: Mutex<i64>,
/// }
///
/// #[tools]
/// impl Counter {
///     /// Adds to the counter and returns the new value.
///     #[tool]
///     fn increment(&self, by: i64) -> i64 {
///         let mut value = self.value.lock().unwrap();
///         *value += by;
///         *value
///     }
///
///     /// Reads the counter.
///     #[tool]
///     fn read(&self) -> i64 {
///         *self.value.lock().unwrap()
///     }
/// }
///
/// let mut registry = ToolRegistry::new();
/// registry.register_set(Arc::new(Counter::default())).unwrap();
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["increment", "read"]);
/// ```
pub trait ToolSet: Send + Sync + 'static {
    /// The tools of the set, in declaration order, each holding `self`.
    fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>>;
}
