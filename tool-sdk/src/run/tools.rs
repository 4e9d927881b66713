//! The tools of one run: the loop's registry, plus what tool providers added (add-only).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use crate::define::{Defer, Tool, ToolContext, ToolDefinition, ToolError, ToolOutput};
use crate::describe::search::{
    describe_found, search_tool, search_tool_lowered, EmbedError, SearchRequest, SearchStrategy,
    DEFAULT_SEARCH_LIMIT,
};
use crate::describe::{Dialect, Lowered, LoweredSchemas, LoweringError};
use crate::model::{OfferedTool, ToolCall};
use crate::register::{CallFuture, ToolProvider, ToolRegistry};
use crate::run::execute::{Answer, Calls};

pub(crate) struct RunTools<'a> {
    registry: &'a ToolRegistry,
    added: ToolRegistry,
    search: &'a dyn SearchStrategy,
    defer_threshold: usize,
    search_definition: &'static ToolDefinition,
    /// Deferred tools a search found in this run: offered from then on (add-only).
    found: Mutex<HashSet<String>>,
    /// How many of the tools providers added (which only grow) are known to be describable in
    /// the model's dialect; the registry's are checked once per loop.
    checked: usize,
}

impl<'a> RunTools<'a> {
    pub(crate) fn new(
        registry: &'a ToolRegistry,
        search: &'a dyn SearchStrategy,
        defer_threshold: usize,
        found: HashSet<String>,
    ) -> Self {
        Self {
            registry,
            // Provided tools get the user's state and limits, as registered tools do.
            added: registry.empty_sibling(),
            search,
            defer_threshold,
            search_definition: search_tool(),
            found: Mutex::new(found),
            checked: 0,
        }
    }

    /// Every tool of the run, offered or deferred.
    fn all_tools(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.registry.tools().chain(self.added.tools())
    }

    /// Every tool's definition, offered or deferred.
    fn all(&self) -> impl Iterator<Item = &ToolDefinition> {
        self.all_tools().map(|tool| tool.definition())
    }

    /// Checks that every tool of the run, deferred ones included, can be described in
    /// `dialect`, so that a tool the model cannot take stops the run before any request, not
    /// when a search finds it. The registry's tools (and the search tool) are checked once for
    /// the loop, since its registry does not change; tools providers add, once per run, when
    /// they come. Lowerings are kept in `schemas` across runs.
    pub(crate) fn check_dialect(
        &mut self,
        dialect: Dialect,
        schemas: &LoweredSchemas,
    ) -> Result<(), LoweringError> {
        if !schemas.fixed_set_checked(dialect) {
            search_tool_lowered(dialect)?;
            for tool in self.registry.tools() {
                schemas.get(tool, dialect)?;
            }
            schemas.mark_fixed_set_checked(dialect);
        }
        for tool in self.added.tools().skip(self.checked) {
            schemas.get(tool, dialect)?;
        }
        self.checked = self.added.len();
        Ok(())
    }

    fn is_deferred(&self, definition: &ToolDefinition) -> bool {
        match definition.options.defer {
            Defer::Always => true,
            Defer::Auto => self.registry.len() + self.added.len() > self.defer_threshold,
            _ => false,
        }
    }

    fn found(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.found.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every deferred tool of the run, found or not: the same set at every search of the run
    /// (unless a provider adds tools), so a strategy's index serves them all.
    fn deferred(&self) -> Vec<&ToolDefinition> {
        self.all().filter(|d| self.is_deferred(d)).collect()
    }

    /// Whether `name` is a deferred tool no search has found: calling it is like calling an
    /// unknown tool.
    pub(crate) fn is_hidden(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|tool| self.is_deferred(tool.definition()))
            && !self.found().contains(name)
    }

    /// Whether `name` is the built-in search tool of this run.
    pub(crate) fn is_search(&self, name: &str) -> bool {
        name == self.search_definition.name
            && !self.registry.contains(name)
            && !self.added.contains(name)
    }

    /// Runs the built-in search: the tools found are offered for the rest of the run. With the
    /// result, why the strategy's embedder could not serve it, when it could not.
    pub(crate) async fn run_search(
        &self,
        arguments: &str,
    ) -> (Result<ToolOutput, ToolError>, Option<EmbedError>) {
        #[derive(serde::Deserialize)]
        struct Query {
            query: String,
            limit: Option<usize>,
        }
        let name = self.search_definition.name.as_str();
        let query: Query = match crate::define::arguments::decode(name, arguments) {
            Ok(query) => query,
            Err(error) => return (Err(error), None),
        };
        let deferred = self.deferred();
        let skip: Vec<bool> = {
            let found = self.found();
            deferred.iter().map(|d| found.contains(&d.name)).collect()
        };
        let limit = query.limit.unwrap_or(DEFAULT_SEARCH_LIMIT).clamp(1, 20);
        let request = SearchRequest::new(&query.query, &deferred, limit).with_skip(&skip);
        let result = self.search.search(&request).await;
        let hits: Vec<&ToolDefinition> = result
            .found
            .into_iter()
            .filter(|&i| !request.is_skipped(i))
            .filter_map(|i| deferred.get(i).copied())
            .collect();
        self.found().extend(hits.iter().map(|d| d.name.clone()));
        let output = ToolOutput::text(describe_found(&hits, result.weak));
        (Ok(output), result.fell_back)
    }

    /// What a paused run must remember.
    pub(crate) fn found_names(&self) -> HashSet<String> {
        self.found().clone()
    }

    /// Adds what the providers offer that the run does not know yet.
    /// Gives each tool a provider offered and the run does not take, with why: its name is the
    /// loop's own tool's (which is kept), or breaks the name rule.
    pub(crate) async fn refresh(
        &mut self,
        providers: &[Arc<dyn ToolProvider>],
    ) -> Vec<(String, String)> {
        let mut skipped = Vec::new();
        for provider in providers {
            for tool in provider.tools().await {
                let name = tool.definition().name.clone();
                if self.registry.contains(&name) {
                    skipped.push((
                        name,
                        "the loop has a tool of this name, which is kept; give the provider a \
                         prefix for its tools (for an MCP client, McpClientBuilder::with_prefix)"
                            .to_owned(),
                    ));
                } else if !self.added.contains(&name) {
                    if let Err(error) = self.added.register_arc(tool) {
                        skipped.push((name, error.to_string()));
                    }
                }
            }
        }
        skipped
    }

    /// Calls `each` with every tool the next request offers: every tool not deferred and the
    /// deferred ones a search found. Says whether the search tool is offered too (while
    /// anything stays deferred, unless a tool of the run has its name).
    fn each_offered<'s>(&'s self, mut each: impl FnMut(&'s Arc<dyn Tool>)) -> bool {
        let found = self.found();
        let mut hidden = false;
        let mut named_search = false;
        for tool in self.all_tools() {
            let definition = tool.definition();
            if !self.is_deferred(definition) || found.contains(&definition.name) {
                named_search |= definition.name == self.search_definition.name;
                each(tool);
            } else {
                hidden = true;
            }
        }
        hidden && !named_search
    }

    /// The definitions the next request offers (see [`each_offered`](Self::each_offered)).
    pub(crate) fn definitions(&self) -> Vec<&ToolDefinition> {
        let mut offered = Vec::new();
        if self.each_offered(|tool| offered.push(tool.definition())) {
            offered.push(self.search_definition);
        }
        offered
    }

    /// What the next request offers to a model whose dialect takes the canonical schema.
    pub(crate) fn offered_canonical(&self) -> Vec<OfferedTool<'_>> {
        let mut offered = Vec::new();
        if self.each_offered(|tool| offered.push(OfferedTool::canonical(tool.definition()))) {
            offered.push(OfferedTool::canonical(self.search_definition));
        }
        offered
    }

    /// What the next request offers, each tool with its lowering to `dialect` kept in
    /// `schemas` (checked first with [`check_dialect`](Self::check_dialect)).
    pub(crate) fn offered_lowered(
        &self,
        dialect: Dialect,
        schemas: &LoweredSchemas,
    ) -> Result<Vec<(&ToolDefinition, Lowered)>, LoweringError> {
        let mut offered = Vec::new();
        let mut failed = None;
        let search = self.each_offered(|tool| match schemas.get(tool, dialect) {
            Ok(lowered) => offered.push((tool.definition(), lowered)),
            Err(error) => {
                failed.get_or_insert(error);
            }
        });
        if let Some(error) = failed {
            return Err(error);
        }
        if search {
            offered.push((self.search_definition, search_tool_lowered(dialect)?));
        }
        Ok(offered)
    }

    /// Every tool of the run, offered or deferred (for what does not depend on the request,
    /// such as whether a call may need a decision).
    pub(crate) fn all_definitions(&self) -> Vec<&ToolDefinition> {
        self.all().collect()
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.definitions()
            .into_iter()
            .map(|d| d.name.clone())
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
}

impl Calls for RunTools<'_> {
    fn tool(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.get(name)
    }

    /// The search runs here; a deferred tool no search found is unknown to the model, which is
    /// pointed at the search.
    fn answered_here<'c>(&'c self, call: &'c ToolCall) -> Option<Answer<'c>> {
        if self.is_search(&call.name) {
            Some(Box::pin(self.run_search(&call.arguments)))
        } else if self.is_hidden(&call.name) {
            let unknown = Err(ToolError::unknown_tool(
                call.name.clone(),
                vec![crate::describe::search::SEARCH_TOOL_NAME.to_owned()],
            ));
            Some(Box::pin(std::future::ready((unknown, None))))
        } else {
            None
        }
    }

    fn start<'c>(
        &'c self,
        name: &str,
        arguments: &'c str,
        context: ToolContext<'c>,
    ) -> CallFuture<'c> {
        self.registry_for(name).call_with(name, arguments, context)
    }

    /// The tool search, or a tool declared read-only: what may run beside other reads under
    /// [`Concurrency::ReadsTogether`](crate::run::Concurrency::ReadsTogether).
    fn is_read(&self, name: &str) -> bool {
        self.is_search(name)
            || self
                .get(name)
                .is_some_and(|tool| tool.definition().options.read_only)
    }
}
