//! What a loop calls: its model, and its tools (the registry, what providers add, how deferred
//! tools are searched, and each tool's parameters lowered once for the model's dialect).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use crate::describe::search::{Bm25Search, SearchStrategy};
use crate::describe::LoweredSchemas;
use crate::model::ChatModel;
use crate::register::{ToolProvider, ToolRegistry};
use crate::run::observe::Observer as _;
use crate::run::observers::Observers;
use crate::run::tools::RunTools;

pub(crate) struct Callees {
    pub(crate) model: Arc<dyn ChatModel>,
    pub(crate) registry: ToolRegistry,
    pub(crate) providers: Vec<Arc<dyn ToolProvider>>,
    /// Ranks deferred tools for the built-in search tool.
    pub(crate) search: Arc<dyn SearchStrategy>,
    /// Each tool's parameters in the model's dialect, lowered once for every run.
    pub(crate) schemas: LoweredSchemas,
    /// Providers' tools reported as not taken, each once.
    skipped: Mutex<HashSet<String>>,
}

impl Callees {
    pub(crate) fn new(model: Arc<dyn ChatModel>, registry: ToolRegistry) -> Self {
        Self {
            model,
            registry,
            providers: Vec::new(),
            search: Arc::new(Bm25Search::new()),
            schemas: LoweredSchemas::default(),
            skipped: Mutex::default(),
        }
    }

    /// The tools of one run: the registry's, what a search of it already `found` offered,
    /// tools deferred past `defer_threshold`.
    pub(crate) fn run_tools(&self, defer_threshold: usize, found: HashSet<String>) -> RunTools<'_> {
        RunTools::new(&self.registry, &*self.search, defer_threshold, found)
    }

    /// Adds what the providers offer, and reports once per name what the run does not take.
    pub(crate) async fn refresh(&self, tools: &mut RunTools<'_>, observers: &Observers) {
        for (name, reason) in tools.refresh(&self.providers).await {
            let first = self
                .skipped
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(name.clone());
            if first {
                observers.tool_skipped(&name, &reason);
            }
        }
    }
}
