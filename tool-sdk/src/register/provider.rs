//! Tool providers: sources of tools consulted at every round, add-only.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::define::Tool;

/// A boxed future of a provider's tool list.
pub type ProviderFuture<'a> = Pin<Box<dyn Future<Output = Vec<Arc<dyn Tool>>> + Send + 'a>>;

/// A source of tools consulted at every round (an MCP client, a plugin directory). What it
/// gives is added to the run; nothing is ever removed, and a name the run knows already is
/// kept as it was.
pub trait ToolProvider: Send + Sync {
    /// The tools available now.
    fn tools(&self) -> ProviderFuture<'_>;
}
