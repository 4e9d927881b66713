//! A registry served as an MCP server.

use std::fmt;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, GetTaskParams, GetTaskResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as RmcpTool, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};

use super::describe::describe;
use super::framing;
use super::gatekeeper::{Gatekeeper, Passage, CLIENT_USER};
use super::progress::Forwarding;
use super::result::{refusal, to_call_result};
use super::structured::wrapping;
use super::task_settings::McpTasks;
use super::tasks::{TaskCall, Tasks};
use super::{McpDecisions, McpError, McpServerInfo, McpTool};
use crate::gate::ConfirmationPolicy;
use crate::model::ToolCall;
use crate::register::ToolRegistry;
use crate::run::{Executor, Gated};

/// A [`ToolRegistry`] served over MCP: `tools/list` lists its tools, `tools/call` dispatches
/// through it.
///
/// - **Listing**: name, description, the parameters schema in the MCP dialect
///   ([`Dialect::Mcp`](crate::describe::Dialect::Mcp)) as `inputSchema`, and annotations from
///   the tool's options (see the [module documentation](super#annotations)).
/// - **Calls**: output is a text block; JSON output (a [`Json`](crate::define::Json) or any
///   `Serialize` result) is also `structuredContent` (an object as it is, any other value
///   under `"result"`). A tool with an output schema lists it as `outputSchema` (wrapped
///   under `"result"` when it is not an object schema, its results then always wrapped too).
///   A classified [`ToolError`](crate::define::ToolError) (bad arguments, the tool's `Err`, a
///   panic, a timeout) is an `isError: true` result carrying
///   [`model_message`](crate::define::ToolError::model_message), for the model to read and
///   correct. An unknown tool name is a protocol error (`-32602`), as MCP asks.
/// - **Decisions**: a call that needs a person's decision (the tool's `confirm`, or the
///   [`ConfirmationPolicy`] given to the builder) **asks the host's user** by default: with an
///   input request on a 2026-07-28 session, an elicitation request on an older one, and a
///   refusal naming what is missing when the client offers neither; the call runs once if
///   allowed. [`McpDecisions`] (given to [`McpServerBuilder::with_decisions`]) chooses
///   otherwise: refuse, or a policy of the application's own.
/// - **Progress**: a tool's reports through its context ([`Progress`](crate::define::Progress))
///   reach the client as `notifications/progress` when its request carries a progress token,
///   all before the result.
/// - **Cancellation**: a client's `notifications/cancelled` cancels the token tools see in
///   their context ([`CancellationToken`](crate::run::CancellationToken)).
///
/// The server reports the application's name and version, given to [`McpServer::builder`].
/// Options only the loop acts on (`return_direct`, `defer`, compensation) mean nothing to an
/// MCP client: every tool is listed, and each call stands alone.
///
/// # Examples
///
/// ```no_run
/// use tool_sdk::mcp::McpServer;
/// use tool_sdk::{tool, ToolRegistry};
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let mut registry = ToolRegistry::new();
///     registry.register(AddTool)?;
///     McpServer::builder(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
///         .with_instructions("Call `add` to sum two integers.")
///         .build(registry)?
///         .serve_stdio()
///         .await?;
///     Ok(())
/// }
/// ```
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Arc<ToolRegistry>,
    /// The listing, built once: schemas are lowered and checked when the server is built.
    tools: Vec<RmcpTool>,
    /// The same listing as users read it.
    listed: Vec<McpTool>,
    implementation: Implementation,
    instructions: Option<String>,
    policy: ConfirmationPolicy,
    gatekeeper: Gatekeeper,
    /// Calls of long-running tools, served as tasks.
    tasks: Tasks,
    line_limit: usize,
}

/// Builds an [`McpServer`]; see [`McpServer::builder`].
#[derive(Debug)]
pub struct McpServerBuilder {
    implementation: Implementation,
    instructions: Option<String>,
    policy: ConfirmationPolicy,
    decisions: McpDecisions,
    tasks: McpTasks,
    line_limit: usize,
}

impl McpServer {
    /// A server that introduces itself as `name` `version`: the application's, such as
    /// `env!("CARGO_PKG_NAME")` and `env!("CARGO_PKG_VERSION")`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> McpServerBuilder {
        McpServerBuilder {
            implementation: Implementation::new(name, version),
            instructions: None,
            policy: ConfirmationPolicy::new(),
            decisions: McpDecisions::default(),
            tasks: McpTasks::default(),
            line_limit: framing::DEFAULT_LINE_LIMIT,
        }
    }

    /// Serves one client over the process's standard input and output, until the client
    /// closes them. A client that leaves in the middle of a call ends the session cleanly:
    /// calls still running get up to 5 s to answer, then they are dropped.
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves one client over any byte stream pair (newline-delimited JSON-RPC, as stdio),
    /// until the reader ends.
    ///
    /// Every line gets an answer or is served: a line that is not JSON gets `-32700`; JSON
    /// that is not a JSON-RPC message, a line longer than the
    /// [line limit](McpServerBuilder::with_line_limit) and a value nested deeper than 127 levels
    /// get `-32600`, all with `"id": null` (the error's message names the limit). A long line
    /// is dropped as it arrives, so memory never holds more of it than the limit; the next
    /// line is served as usual.
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> Result<(), McpError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (transport, writer) = framing::transport(reader, writer, self.inner.line_limit);
        let running = ServiceExt::serve(self.handler(), transport)
            .await
            .map_err(|error| McpError::Initialize(Box::new(error)));
        let stopped = match running {
            Ok(running) => running
                .waiting()
                .await
                .map(|_| ())
                .map_err(|error| McpError::Stopped(Box::new(error))),
            Err(error) => Err(error),
        };
        // Whatever the protocol wrote last (its answers to calls in flight) reaches the client.
        writer.finish().await;
        stopped
    }

    /// The tools as `tools/list` gives them, in the registry's order (see [`McpTool`]).
    pub fn listed_tools(&self) -> &[McpTool] {
        &self.inner.listed
    }

    /// The name and version the server introduces itself with.
    ///
    /// # Examples
    ///
    /// ```
    /// use tool_sdk::mcp::McpServer;
    /// use tool_sdk::ToolRegistry;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = McpServer::builder("dictionary", "1.2.0").build(ToolRegistry::new())?;
    /// assert_eq!(server.info().name, "dictionary");
    /// assert_eq!(server.info().version, "1.2.0");
    /// # Ok(())
    /// # }
    /// ```
    pub fn info(&self) -> McpServerInfo {
        McpServerInfo::from_rmcp(self.inner.implementation.clone())
    }

    /// Whether a tool is long-running, so that the server declares the Tasks extension.
    fn serves_tasks(&self) -> bool {
        self.inner
            .registry
            .definitions()
            .any(|definition| definition.options.long_running)
    }

    /// What rmcp serves: the server under a type of the crate's own, so that rmcp's handler
    /// trait is no part of [`McpServer`]'s public API.
    pub(super) fn handler(&self) -> Handler {
        Handler(self.clone())
    }
}

impl McpServerBuilder {
    /// Instructions for the client's model on how to use the server's tools.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Calls that need a person's decision besides those the tools declare (`confirm`). A
    /// policy's deadline ([`ConfirmationPolicy::with_deadline`]) is how long the host's user
    /// has to answer: past it the call is not run, and the client's model is told so (15
    /// minutes without one).
    pub fn with_confirmation_policy(mut self, policy: ConfirmationPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// What a call that needs a person's decision gets: by default
    /// [`McpDecisions::ask`], the host's user asked.
    pub fn with_decisions(mut self, decisions: McpDecisions) -> Self {
        self.decisions = decisions;
        self
    }

    /// Where the tasks this server serves (the calls of
    /// [`long_running`](crate::define::ToolOptions::long_running) tools, to a client that takes
    /// tasks) are kept, and for how long: by default in memory, for an hour.
    pub fn with_tasks(mut self, tasks: McpTasks) -> Self {
        self.tasks = tasks;
        self
    }

    /// The longest line, in bytes (its line break aside), that
    /// [`serve_stdio`](McpServer::serve_stdio) and [`serve_io`](McpServer::serve_io) read: a
    /// longer one is dropped as it arrives and answered with a `-32600` error naming the
    /// limit. By default 4 MiB, the largest request body the HTTP transport takes.
    pub fn with_line_limit(mut self, bytes: usize) -> Self {
        self.line_limit = bytes;
        self
    }

    /// The server over `registry`. Fails when a tool's schema has no MCP form, or when no
    /// key can be drawn for the request states of the [decisions](Self::with_decisions).
    pub fn build(self, registry: impl Into<Arc<ToolRegistry>>) -> Result<McpServer, McpError> {
        let registry = registry.into();
        let gatekeeper = Gatekeeper::new(
            self.decisions,
            &self.implementation.name,
            self.policy.deadline(),
        )?;
        let tools = registry
            .definitions()
            .map(describe)
            .collect::<Result<Vec<_>, _>>()?;
        let listed = tools.iter().map(McpTool::from_rmcp).collect();
        Ok(McpServer {
            inner: Arc::new(Inner {
                registry,
                tools,
                listed,
                implementation: self.implementation,
                instructions: self.instructions,
                policy: self.policy,
                gatekeeper,
                tasks: Tasks::new(self.tasks),
                line_limit: self.line_limit,
            }),
        })
    }
}

/// An [`McpServer`] as rmcp serves it.
#[derive(Clone)]
pub(super) struct Handler(McpServer);

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.0.serves_tasks() {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        let config =
            ServerConfig::new(capabilities).with_server_info(self.0.inner.implementation.clone());
        match &self.0.inner.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.0.inner.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let registry = &self.0.inner.registry;
        let name = request.name.as_ref();
        let Some(tool) = registry.get(name) else {
            let error = registry.unknown_tool(name);
            return Err(ErrorData::invalid_params(error.model_message(), None));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default()).to_string();
        let call_id = context.id.to_string();
        let call = ToolCall::new(call_id.as_str(), name, arguments.as_str());
        let wrapping = wrapping(tool.definition().output_schema.as_ref());
        // Decoded and checked before anyone is asked: a call that cannot run is answered with
        // its error, never put to a person who would allow it in vain.
        if let Err(error) = registry.check(name, &arguments) {
            tracing::debug!(tool = name, %error, "tool call refused before it ran");
            return Ok(to_call_result(Err(error), wrapping).into());
        }
        let gatekeeper = &self.0.inner.gatekeeper;
        // A retry carrying a request state is the answer to a question this server asked:
        // it is checked whatever the policy says now, and decides the call.
        let passage = if let Some(state) = &request.request_state {
            gatekeeper
                .resume(state, request.input_responses.as_ref(), &call)
                .await?
        } else if self
            .0
            .inner
            .policy
            .needs_confirmation(&call, Some(tool.as_ref()))
        {
            gatekeeper.decide(&call, &context).await?
        } else {
            Passage::Run(None)
        };
        let (gated, edited) = match passage {
            Passage::Answer(answer) => return Ok(*answer),
            Passage::Run(None) => (Gated::UNASKED, None),
            Passage::Run(Some(decider)) => (Gated::allowed_by(decider), None),
            Passage::RunEdited(edited) => {
                // The user's arguments fit the tool, or nothing runs.
                if let Err(error) = registry.check(name, &edited) {
                    let unfit = format!(
                        "Error: the arguments the user gave for `{name}` do not fit the tool \
                         ({}); it was not run.",
                        error.model_message()
                    );
                    return Ok(refusal(unfit).into());
                }
                let gated = Gated::allowed_edited_by(CLIENT_USER, edited.clone());
                (gated, Some(edited))
            }
        };
        // An edited call runs here, not as a task: its result carries what the user changed.
        if edited.is_none() && tool.definition().options.long_running && takes_tasks(&context) {
            let task = self
                .0
                .inner
                .tasks
                .start(TaskCall {
                    registry: Arc::clone(registry),
                    name: name.to_owned(),
                    arguments,
                    call_id,
                    wrapping,
                    gated,
                })
                .await?;
            return Ok(CallToolResponse::Task(task));
        }
        let progress = Forwarding::start(&context);
        let executor = Executor {
            progress: progress.as_ref().map(Forwarding::sink),
            cancel: Some(&context.ct),
            ..Executor::plain(&**registry)
        };
        let result = executor.one(call, call_id, gated).await;
        if let Some(progress) = progress {
            // Every report reaches the client before the result does.
            progress.finish().await;
        }
        if let Err(error) = &result {
            tracing::debug!(tool = name, %error, "tool call failed");
        }
        let mut answered = to_call_result(result, wrapping);
        if let Some(edited) = edited {
            answered.content.insert(
                0,
                ContentBlock::text(format!(
                    "A person changed this call's arguments before it ran; it ran with {edited}"
                )),
            );
        }
        Ok(answered.into())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let task = self.0.inner.tasks.get(&request.task_id).await?;
        Ok(GetTaskResult::new(task))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.0.inner.tasks.update(&request.task_id).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.0.inner.tasks.cancel(&request.task_id).await
    }

    /// `rmcp` hands over every request it could not read as a standard one. For a method
    /// this server has, that means its parameters were missing or malformed: `-32602`, not
    /// "method not found".
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method;
        if SERVED_METHODS.contains(&method.as_str()) {
            return Err(ErrorData::invalid_params(
                format!("the parameters of `{method}` are missing or malformed"),
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: `{method}`"),
            None,
        ))
    }
}

/// Whether the client declared the Tasks extension for this request (or its session).
fn takes_tasks(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks())
}

/// The methods this server answers, besides the lifecycle.
const SERVED_METHODS: &[&str] = &[
    "tools/list",
    "tools/call",
    "ping",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
];

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("info", &self.info())
            .field("registry", &self.inner.registry)
            .field("policy", &self.inner.policy)
            .finish_non_exhaustive()
    }
}
