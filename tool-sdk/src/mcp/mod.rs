//! MCP (Model Context Protocol): serve a registry's tools to MCP hosts, and use the tools of
//! MCP servers. Built on the `rmcp` crate, none of whose types this API names; cargo feature
//! `mcp` (stdio), and `mcp-http` for streamable HTTP.
//!
//! # Serve
//!
//! [`McpServer`] serves a [`ToolRegistry`](crate::register::ToolRegistry) over stdio (or any byte
//! stream pair), or with feature `mcp-http` over streamable HTTP (`McpServer::serve_http`, or
//! `McpServer::into_http_service` to mount in a web framework): `tools/list` and
//! `tools/call`, the server reporting the application's own name and version.
//!
//! ```no_run
//! use tool_sdk::mcp::McpServer;
//! use tool_sdk::{tool, ToolRegistry};
//!
//! /// Looks a word up in the dictionary.
//! #[tool]
//! fn define(word: String) -> String {
//!     format!("{word}: a word")
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let mut registry = ToolRegistry::new();
//!     registry.register(DefineTool)?;
//!     let server = McpServer::builder("dictionary", "1.2.0").build(registry)?;
//!     server.serve_stdio().await?;
//!     Ok(())
//! }
//! ```
//!
//! # Consume
//!
//! [`McpClient`] starts an MCP server as a child process (or, with feature `mcp-http`, reaches
//! one over streamable HTTP: `McpClientBuilder::connect_http`) and turns its tools into
//! [`DynamicTool`](crate::register::DynamicTool)s: add them to a registry, or give the client to a
//! [`ToolLoop`](crate::run::ToolLoop) as a [`ToolProvider`](crate::register::ToolProvider).
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use tokio::process::Command;
//! use tool_sdk::mcp::McpClient;
//! use tool_sdk::run::ToolLoop;
//! use tool_sdk::{ScriptedModel, ToolRegistry};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let weather = McpClient::builder()
//!     .with_prefix("weather_")
//!     .spawn(Command::new("weather-mcp-server"))
//!     .await?;
//! let agent = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new())
//!     .with_provider(Arc::new(weather));
//! # Ok(())
//! # }
//! ```
//!
//! # Images and files
//!
//! A served output with [`Part`](crate::define::Part)s is one content block per part, in
//! order: text and JSON `text`, an image `image`, a file of type `audio/*` `audio`, any other
//! file an embedded `resource` holding a `blob` under `tool-sdk://files/NAME` (the file's
//! name percent-encoded). Its JSON part, when it has exactly one, is also
//! `structuredContent`, as JSON output is. MCP's image and audio blocks carry no name.
//!
//! A consumed result keeps a server's media as parts, in order: images as `Part::Image`,
//! audio and embedded blobs as `Part::File` (a blob named by its URI's last segment); embedded text resources and resource links are
//! text, and media whose data is not base64 is a text saying so. A result of text alone is
//! text, as it always was.
//!
//! # Decisions
//!
//! A served tool call that needs a person's decision (the tool's `confirm`, or the server's
//! [`ConfirmationPolicy`](crate::gate::ConfirmationPolicy)) asks the host's user: with an
//! input request whose request state is sealed and bound to the call and the server on a
//! 2026-07-28 session, with an elicitation request on an older one, and is refused (naming
//! what is missing) when the client offers neither; [`McpDecisions`] chooses otherwise. Such
//! tools are also listed with `destructiveHint: true` (unless they say otherwise). On the
//! consuming side, [`McpClientBuilder::with_confirm_destructive`] makes the server's possibly
//! destructive tools wait for a decision in the loop or the gate.
//!
//! # Annotations
//!
//! | tool options | MCP annotations |
//! |---|---|
//! | [`read_only`](crate::define::ToolOptions::read_only) | `readOnlyHint` (always stated) |
//! | [`destructive`](crate::define::ToolOptions::destructive) `Some(b)`, not read-only | `destructiveHint: b` |
//! | not set, `confirm` declared, not read-only | `destructiveHint: true` |
//! | not set, no `confirm`, not read-only | left out (MCP then assumes `true`) |
//!
//! Consumed tools get `read_only` and `destructive` back from the server's hints.
//!
//! # Protocol errors
//!
//! An unknown method is answered with `-32601`; a served method (`tools/call`, ...) whose
//! parameters are missing or malformed with `-32602`. Over stdio, every other bad line gets
//! the answer JSON-RPC 2.0 prescribes, with `"id": null`: a line that is not JSON at all
//! (invalid UTF-8 included) `-32700`; well-formed JSON that is not a JSON-RPC message (a batch
//! array included), a line longer than the
//! [line limit](McpServerBuilder::with_line_limit) (4 MiB by default) and a value nested deeper
//! than 127 levels `-32600`, the message naming the limit. A long line is dropped as it
//! arrives, so it never takes more memory than the limit, and the next line is served as
//! usual. A notification is never answered, as JSON-RPC asks. Being valid JSON itself, an
//! error answer cannot start an error loop with a peer that answers the same way.
//!
//! A client that disconnects, even in the middle of a call, ends [`McpServer::serve_stdio`]
//! normally: calls still running get up to 5 s to finish and answer (a client may close its
//! end after its last request and still read), then they are dropped and the tools'
//! cancellation token is cancelled.
#![doc = include_str!("guide.md")]

mod annotations;
mod client;
mod content;
mod decisions;
mod describe;
mod elicitation;
mod error;
mod file_uri;
mod framing;
mod gatekeeper;
#[cfg(feature = "mcp-http")]
mod http;
#[cfg(feature = "mcp-http")]
mod http_client;
#[cfg(feature = "mcp-http")]
mod http_client_settings;
#[cfg(feature = "mcp-http")]
mod http_service;
#[cfg(feature = "mcp-http")]
mod http_settings;
#[cfg(feature = "mcp-http")]
mod idle_body;
#[cfg(feature = "mcp-http")]
mod kept_body;
mod listed_tool;
mod listing;
mod progress;
mod question;
mod rejection;
mod remote;
mod remote_call;
mod request_state;
mod result;
mod server;
mod server_info;
#[cfg(feature = "mcp-http")]
mod sessions;
mod structured;
mod task_settings;
mod tasks;
mod tool_annotations;
mod tool_list;

pub use client::{McpClient, McpClientBuilder};
pub use decisions::{McpDecision, McpDecisions};
pub use elicitation::{McpElicitation, McpElicitationAnswer};
pub use error::McpError;
#[cfg(feature = "mcp-http")]
pub use http_service::{McpHttpResponse, McpHttpService};
#[cfg(feature = "mcp-http")]
pub use http_settings::McpHttpSettings;
pub use listed_tool::McpTool;
pub use listing::{LeftOutTool, McpToolListing, RenamedTool};
pub use server::{McpServer, McpServerBuilder};
pub use server_info::McpServerInfo;
pub use structured::STRUCTURED_RESULT_KEY;
pub use task_settings::McpTasks;
pub use tool_annotations::McpToolAnnotations;
