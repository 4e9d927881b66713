//! How often an MCP client, as a loop's tool provider, lists its server's tools: once, and
//! again after each announced change, for a server that declares it announces changes; every
//! round for any other. The server is an rmcp server of the test's own, reached in-process,
//! that counts the listings.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;
use tool_sdk::mcp::McpClient;
use tool_sdk::register::ToolProvider;

/// What the server lists, how many times it was asked, and how long each of the next
/// answers takes (what it answers is read when asked, before the wait).
#[derive(Default)]
struct Listing {
    names: Mutex<Vec<&'static str>>,
    asked: AtomicUsize,
    delays: Mutex<VecDeque<Duration>>,
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
        let delay = self
            .listing
            .delays
            .lock()
            .expect("not poisoned")
            .pop_front();
        if let Some(delay) = delay {
            tokio::time::sleep(delay).await;
        }
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

/// The server lists one tool more from now on, and says so.
async fn add_and_announce(
    server: &RunningService<RoleServer, ChangingServer>,
    listing: &Listing,
    name: &'static str,
) {
    listing.names.lock().expect("not poisoned").push(name);
    server
        .peer()
        .notify_tool_list_changed()
        .await
        .expect("the notification is sent");
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

    add_and_announce(&server, &listing, "second").await;
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

#[tokio::test]
async fn a_slow_listing_from_before_a_change_does_not_outlive_it() {
    let Session {
        client,
        server,
        listing,
    } = session(true).await;
    let client = std::sync::Arc::new(client);

    // Round A asks first and is answered slowly, with the list of before the change.
    listing
        .delays
        .lock()
        .expect("not poisoned")
        .push_back(Duration::from_millis(500));
    let slow = tokio::spawn({
        let client = std::sync::Arc::clone(&client);
        async move { provided(&client).await }
    });
    while listing.asked.load(Ordering::SeqCst) < 1 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    add_and_announce(&server, &listing, "second").await;
    tokio::time::sleep(Duration::from_millis(100)).await;

    // Round B, after the change, is answered at once with the new list.
    assert_eq!(provided(&client).await, ["first", "second"]);
    assert_eq!(slow.await.expect("round A ends"), ["first"]);

    // Round A's late answer must not replace round B's.
    assert_eq!(provided(&client).await, ["first", "second"]);
    assert_eq!(listing.asked.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_call_the_server_does_not_answer_makes_it_listed_again() {
    let Session {
        client,
        server: _server,
        listing,
    } = session(true).await;
    let tools = ToolProvider::tools(&client).await;
    assert_eq!(listing.asked.load(Ordering::SeqCst), 1);

    // This server has no tools/call: the call fails at the protocol level.
    let error = tools[0]
        .call("{}", tool_sdk::ToolContext::new())
        .await
        .expect_err("the server answers with an error");
    assert!(
        matches!(error, tool_sdk::ToolError::ExecutionFailed { .. }),
        "{error:?}"
    );
    assert_eq!(provided(&client).await, ["first"]);
    assert_eq!(listing.asked.load(Ordering::SeqCst), 2, "listed again");
}
