//! The tools of one run: the loop's registry, plus what tool providers added (add-only).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::{CallFuture, Tool, ToolContext, ToolDefinition, ToolRegistry};

/// A boxed future of a provider's tool list.
pub type ProviderFuture<'a> = Pin<Box<dyn Future<Output = Vec<Arc<dyn Tool>>> + Send + 'a>>;

/// A source of tools consulted at every round (an MCP client, a plugin directory). What it
/// gives is added to the run; nothing is ever removed, and a name the run knows already is
/// kept as it was.
pub trait ToolProvider: Send + Sync {
    /// The tools available now.
    fn tools(&self) -> ProviderFuture<'_>;
}

pub(crate) struct RunTools<'a> {
    registry: &'a ToolRegistry,
    added: ToolRegistry,
}

impl<'a> RunTools<'a> {
    pub(crate) fn new(registry: &'a ToolRegistry) -> Self {
        Self {
            registry,
            added: ToolRegistry::new(),
        }
    }

    /// Adds what the providers offer that the run does not know yet.
    pub(crate) async fn refresh(&mut self, providers: &[Arc<dyn ToolProvider>]) {
        for provider in providers {
            for tool in provider.tools().await {
                let name = tool.definition().name.as_str();
                if !self.registry.contains(name) && !self.added.contains(name) {
                    // A provider's tool with an invalid name is skipped, not fatal.
                    let _ = self.added.register_arc(tool);
                }
            }
        }
    }

    pub(crate) fn definitions(&self) -> Vec<&ToolDefinition> {
        self.registry
            .definitions()
            .chain(self.added.definitions())
            .collect()
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.registry
            .names()
            .chain(self.added.names())
            .map(str::to_owned)
            .collect()
    }

    pub(crate) fn registry_for(&self, name: &str) -> &ToolRegistry {
        if self.registry.contains(name) || !self.added.contains(name) {
            self.registry
        } else {
            &self.added
        }
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.registry.get(name).or_else(|| self.added.get(name))
    }

    pub(crate) fn call<'c>(
        &'c self,
        name: &str,
        arguments: &'c str,
        context: ToolContext<'c>,
    ) -> CallFuture<'c> {
        self.registry_for(name).call_with(name, arguments, context)
    }
}
