//! How often an MCP client, as a loop's tool provider, lists its server's tools: once, and
//! again after each announced change, for a server that declares it announces changes; every
//! round for any other. The server is an rmcp server of the test's own, reached in-process,
//! that counts the listings.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tool_sdk::mcp::rmcp::model::{
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use tool_sdk::mcp::rmcp::service::{RequestContext, RunningService};
use tool_sdk::mcp::rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use tool_sdk::mcp::McpClient;
use tool_sdk::run::ToolProvider;

/// What the server lists, and how many times it was asked.
#[derive(Default)]
struct Listing {
    names: Mutex<Vec<&'static str>>,
    asked: AtomicUsize,
}

#[derive(Clone)]
struct ChangingServer {
    announces_changes: bool,
    listing: Arc<Listing>,
}

impl ServerHandler for ChangingServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools();
        let capabilities = if self.announces_changes {
            capabilities.enable_tool_list_changed().build()
        } else {
            capabilities.build()
        };
        ServerConfig::new(capabilities)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.listing.asked.fetch_add(1, Ordering::SeqCst);
        let schema = json!({"type": "object", "properties": {}});
        let schema = schema.as_object().cloned().unwrap_or_default();
        let names = self.listing.names.lock().expect("not poisoned").clone();
        let tools = names
            .into_iter()
            .map(|name| McpTool::new(name, "A tool.", schema.clone()))
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }
}

struct Session {
    client: McpClient,
    server: RunningService<RoleServer, ChangingServer>,
    listing: Arc<Listing>,
}

async fn session(announces_changes: bool) -> Session {
    let listing = Arc::new(Listing::default());
    listing.names.lock().expect("not poisoned").push("first");
    let handler = ChangingServer {
        announces_changes,
        listing: Arc::clone(&listing),
    };
    let (client_side, server_side) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_side);
    let (server_read, server_write) = tokio::io::split(server_side);
    let (server, client) = tokio::join!(
        handler.serve((server_read, server_write)),
        McpClient::builder().connect_io(client_read, client_write),
    );
    Session {
        client: client.expect("the client sets up"),
        server: server.expect("the server sets up"),
        listing,
    }
}

async fn provided(client: &McpClient) -> Vec<String> {
    ToolProvider::tools(client)
        .await
        .iter()
        .map(|tool| tool.definition().name.clone())
        .collect()
}

#[tokio::test]
async fn a_server_that_announces_changes_is_listed_again_only_after_one() {
    let Session {
        client,
        server,
        listing,
    } = session(true).await;

    for _ in 0..3 {
        assert_eq!(provided(&client).await, ["first"]);
    }
    assert_eq!(listing.asked.load(Ordering::SeqCst), 1, "listed once");

    listing.names.lock().expect("not poisoned").push("second");
    server
        .peer()
        .notify_tool_list_changed()
        .await
        .expect("the notification is sent");
    // The notification travels on its own; until it is handled the kept list stands.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while provided(&client).await != ["first", "second"] {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the change never showed"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(provided(&client).await, ["first", "second"]);
    assert_eq!(
        listing.asked.load(Ordering::SeqCst),
        2,
        "listed again once, for the one change"
    );
}

#[tokio::test]
async fn any_other_server_is_listed_every_round() {
    let Session {
        client,
        server: _server,
        listing,
    } = session(false).await;

    for round in 1..=3 {
        assert_eq!(provided(&client).await, ["first"]);
        assert_eq!(listing.asked.load(Ordering::SeqCst), round);
    }
    listing.names.lock().expect("not poisoned").push("second");
    assert_eq!(provided(&client).await, ["first", "second"]);
}
