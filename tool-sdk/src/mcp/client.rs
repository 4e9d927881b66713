//! A connection to an MCP server whose tools this process uses.

use std::fmt;
use std::sync::Arc;

use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitationCapability, FormElicitationCapability,
    Implementation,
};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::process::Command;

use super::elicitation::Answerer;
use super::listing::{names, LeftOutTool, McpToolListing, RenamedTool, Warned};
use super::remote::{remote_tool, Shaping};
use super::tool_list::{ToolList, Watcher};
use super::{McpElicitation, McpElicitationAnswer, McpError, McpServerInfo};
use crate::define::{Defer, Tool};
use crate::register::{DynamicTool, ProviderFuture, ToolProvider, ToolRegistry};

/// A session with an MCP server, whose tools become [`DynamicTool`]s: each keeps the server's
/// name (after an optional prefix), description and `inputSchema` (its parameters schema,
/// against which arguments are validated before they are sent), and each call goes to the
/// server. A server's `isError` result, or a lost connection, is a
/// [`ToolError::ExecutionFailed`](crate::define::ToolError::ExecutionFailed) with the server's message.
///
/// Use it as a [`ToolProvider`] of a [`ToolLoop`](crate::run::ToolLoop) (new tools are added
/// to the run as the server lists them), or add its tools to a registry once with
/// [`register_into`](Self::register_into). As a provider, a server that declares it announces
/// changes (`tools.listChanged`) is listed once and again after each
/// `notifications/tools/list_changed`, after a call to it fails at the protocol level (its
/// session may have been replaced), and at least once a minute; any other server is listed
/// every round. When listing fails, the round keeps the last list.
///
/// A tool the server lists whose name (with the prefix) breaks the provider rule
/// (`^[a-zA-Z0-9_-]{1,64}$`; MCP allows `math.multiply`) is renamed with
/// [`provider_name`](crate::register::provider_name), and called under its own name. One whose name
/// collides with another's after renaming, or whose schema is not a usable object schema, is
/// left out. [`listing`](Self::listing) says which tools were renamed or left out; besides, a
/// `tracing` warning is logged once per tool, not on every listing.
///
/// The server process is killed when the client is dropped; [`close`](Self::close) ends the
/// session first.
///
/// # Examples
///
/// ```no_run
/// use tokio::process::Command;
/// use tool_sdk::mcp::McpClient;
/// use tool_sdk::ToolRegistry;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut command = Command::new("python3");
/// command.args(["-m", "my_mcp_server"]);
/// let files = McpClient::builder().with_prefix("files_").spawn(command).await?;
///
/// let mut registry = ToolRegistry::new();
/// let added = files.register_into(&mut registry).await?;
/// println!("{added} tools from the server");
/// # Ok(())
/// # }
/// ```
pub struct McpClient {
    service: RunningService<RoleClient, Watcher>,
    shaping: Shaping,
    list: Arc<ToolList>,
    progress: ProgressDispatcher,
    warned: Warned,
}

/// The tools of a listing, those renamed and those left out.
type Shaped = (Vec<DynamicTool>, Vec<RenamedTool>, Vec<LeftOutTool>);

/// Builds an [`McpClient`]; see [`McpClient::builder`].
#[derive(Debug, Clone)]
pub struct McpClientBuilder {
    implementation: Implementation,
    shaping: Shaping,
    elicitation: Option<Answerer>,
    #[cfg(feature = "mcp-http")]
    pub(super) http: super::http_client_settings::HttpSettings,
}

impl McpClient {
    /// A client introducing itself as `tool-sdk` with this crate's version, with no prefix.
    pub fn builder() -> McpClientBuilder {
        McpClientBuilder {
            implementation: Implementation::new("tool-sdk", env!("CARGO_PKG_VERSION")),
            shaping: Shaping {
                prefix: String::new(),
                confirm_destructive: false,
                defer: Defer::Never,
            },
            elicitation: None,
            #[cfg(feature = "mcp-http")]
            http: super::http_client_settings::HttpSettings::default(),
        }
    }

    /// The tools the server lists now, as tools of this process; [`listing`](Self::listing)
    /// also says which were renamed or left out.
    pub async fn tools(&self) -> Result<Vec<Arc<dyn Tool>>, McpError> {
        Ok(self.listing().await?.tools)
    }

    /// Lists the server's tools: the tools, and which of them were renamed to fit the
    /// provider rule or left out, and why.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(client: tool_sdk::mcp::McpClient) -> Result<(), tool_sdk::mcp::McpError> {
    /// let listing = client.listing().await?;
    /// for renamed in &listing.renamed {
    ///     println!("`{}` is called `{}` here", renamed.server_name, renamed.name);
    /// }
    /// for left_out in &listing.left_out {
    ///     eprintln!("`{}` left out: {}", left_out.server_name, left_out.reason);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn listing(&self) -> Result<McpToolListing, McpError> {
        let (tools, renamed, left_out) = self.dynamic_tools().await?;
        Ok(McpToolListing {
            tools: tools
                .into_iter()
                .map(|tool| Arc::new(tool) as Arc<dyn Tool>)
                .collect(),
            renamed,
            left_out,
        })
    }

    /// Adds the server's tools to `registry`; returns how many. Nothing is added when one of
    /// them has a name the registry holds already: [`McpError::NameTaken`], whose message
    /// says to give the client a [prefix](McpClientBuilder::with_prefix).
    pub async fn register_into(&self, registry: &mut ToolRegistry) -> Result<usize, McpError> {
        let (tools, _, _) = self.dynamic_tools().await?;
        let mut names = Vec::with_capacity(tools.len());
        for tool in &tools {
            let name = tool.definition().name.as_str();
            if registry.contains(name) || names.contains(&name) {
                return Err(McpError::NameTaken(name.to_owned()));
            }
            names.push(name);
        }
        let count = tools.len();
        for tool in tools {
            registry.register(tool)?;
        }
        Ok(count)
    }

    /// The name and version the server introduced itself with ([`McpServerInfo`]).
    pub fn server_info(&self) -> Option<McpServerInfo> {
        self.service
            .peer()
            .peer_info()
            .and_then(|info| info.server_info.clone())
            .map(McpServerInfo::from_rmcp)
    }

    /// Ends the session and waits for it to stop.
    pub async fn close(self) -> Result<(), McpError> {
        self.service
            .cancel()
            .await
            .map(|_| ())
            .map_err(|error| McpError::Stopped(Box::new(error)))
    }

    async fn dynamic_tools(&self) -> Result<Shaped, McpError> {
        let peer = self.service.peer();
        let listed = peer
            .list_all_tools()
            .await
            .map_err(|error| McpError::Request(Box::new(error)))?;
        let names = names(&self.shaping.prefix, &listed);
        let mut tools = Vec::with_capacity(listed.len());
        let mut renamed = Vec::new();
        let mut left_out = Vec::new();
        for (tool, name) in listed.into_iter().zip(names) {
            let server_name = tool.name.to_string();
            let made = name.and_then(|name| {
                remote_tool(peer, tool, name, &self.shaping, &self.list, &self.progress)
                    .map_err(|error| error.to_string())
            });
            match made {
                Ok(tool) => {
                    let name = &tool.definition().name;
                    if *name != format!("{}{server_name}", self.shaping.prefix) {
                        if self.warned.first_time(&server_name) {
                            tracing::warn!(
                                server_name,
                                name = name.as_str(),
                                "MCP tool renamed to fit the provider rule"
                            );
                        }
                        renamed.push(RenamedTool {
                            server_name,
                            name: name.clone(),
                        });
                    }
                    tools.push(tool);
                }
                Err(reason) => {
                    if self.warned.first_time(&server_name) {
                        tracing::warn!(server_name, reason, "MCP tool left out");
                    }
                    left_out.push(LeftOutTool {
                        server_name,
                        reason,
                    });
                }
            }
        }
        Ok((tools, renamed, left_out))
    }
}

impl McpClientBuilder {
    /// Puts `prefix` before every tool name, so that tools of several servers (or of a server
    /// and the application) do not clash.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.shaping.prefix = prefix.into();
        self
    }

    /// Whether the server's tools are sent to the model up front or only once the loop's
    /// search tool finds them ([`Defer`]; default [`Defer::Never`]). With many servers, defer
    /// their tools and let the model search.
    pub fn with_defer(mut self, defer: Defer) -> Self {
        self.shaping.defer = defer;
        self
    }

    /// The name and version this client introduces itself with.
    pub fn with_client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.implementation = Implementation::new(name, version);
        self
    }

    /// Whether a tool the server may let destroy something (not `readOnlyHint`, and
    /// `destructiveHint` not `false`: MCP's defaults make an unannotated tool destructive)
    /// waits for a person's decision ([`Confirm::Always`](crate::define::Confirm::Always)) when the
    /// loop or gate runs it. Off by default.
    pub fn with_confirm_destructive(mut self, on: bool) -> Self {
        self.shaping.confirm_destructive = on;
        self
    }

    /// Answers the server's requests for the user's input (`elicitation/create`, form mode)
    /// with `answer`, and declares that the client can: such a server may then ask during a
    /// call, a tool-sdk server asking about a call that needs a person's decision. Without
    /// it, the client declares no elicitation.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use serde_json::json;
    /// use tokio::process::Command;
    /// use tool_sdk::mcp::{McpClient, McpElicitationAnswer};
    ///
    /// # async fn run() -> Result<(), tool_sdk::mcp::McpError> {
    /// let client = McpClient::builder()
    ///     .with_elicitation(|asked| async move {
    ///         // Show `asked.message` and a form for `asked.schema` to the user...
    ///         eprintln!("{}", asked.message);
    ///         McpElicitationAnswer::Accept(json!({"decision": "deny", "reason": "not now"}))
    ///     })
    ///     .spawn(Command::new("bank-mcp-server"))
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_elicitation<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(McpElicitation) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = McpElicitationAnswer> + Send + 'static,
    {
        self.elicitation = Some(Answerer::new(answer));
        self
    }

    /// Starts `command` as the server, speaking MCP over its standard input and output (its
    /// standard error is inherited), and sets the session up.
    pub async fn spawn(self, command: Command) -> Result<McpClient, McpError> {
        let transport = TokioChildProcess::new(command).map_err(McpError::Spawn)?;
        self.connect_transport(transport).await
    }

    /// Sets a session up with a server reached over a byte stream pair (newline-delimited
    /// JSON-RPC, as stdio).
    pub async fn connect_io<R, W>(self, reader: R, writer: W) -> Result<McpClient, McpError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.connect_transport((reader, writer)).await
    }

    pub(super) async fn connect_transport<T, E, A>(
        self,
        transport: T,
    ) -> Result<McpClient, McpError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let list = Arc::new(ToolList::new());
        let progress = ProgressDispatcher::new();
        let mut capabilities = ClientCapabilities::default();
        if self.elicitation.is_some() {
            capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        }
        let watcher = Watcher {
            config: ClientConfig::new(capabilities, self.implementation),
            list: Arc::clone(&list),
            progress: progress.clone(),
            elicitation: self.elicitation,
        };
        let service = watcher
            .serve(transport)
            .await
            .map_err(|error| McpError::Initialize(Box::new(error)))?;
        Ok(McpClient {
            service,
            shaping: self.shaping,
            list,
            progress,
            warned: Warned::default(),
        })
    }
}

impl McpClient {
    /// Whether the server declared that it announces changes to its tool list.
    fn announces_changes(&self) -> bool {
        self.service
            .peer()
            .peer_info()
            .and_then(|info| info.capabilities.tools.as_ref()?.list_changed)
            .unwrap_or(false)
    }
}

impl ToolProvider for McpClient {
    /// The server's tools: kept from the last listing while a server that announces changes
    /// has announced none, listed again otherwise. When listing fails, the last list (none
    /// at first), with a `tracing` warning.
    fn tools(&self) -> ProviderFuture<'_> {
        Box::pin(async move {
            let announces = self.announces_changes();
            if announces {
                if let Some(tools) = self.list.current() {
                    return tools;
                }
            }
            let generation = self.list.listing();
            match McpClient::tools(self).await {
                Ok(tools) => {
                    self.list.keep(generation, &tools);
                    tools
                }
                Err(error) => {
                    tracing::warn!(%error, "MCP server's tools unavailable this round");
                    self.list.last()
                }
            }
        })
    }
}

impl fmt::Debug for McpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.server_info())
            .field("shaping", &self.shaping)
            .finish_non_exhaustive()
    }
}
