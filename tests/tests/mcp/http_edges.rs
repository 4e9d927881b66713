//! MCP over streamable HTTP at its edges, with raw requests: bodies that are not JSON-RPC
//! messages, the `Origin` check against DNS rebinding, the end of a session, and the bound on
//! sessions kept open.

use std::net::SocketAddr;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tool_sdk::mcp::{McpHttpSettings, McpServer};
use tool_sdk::{tool, ToolRegistry};

/// Divides two numbers.
#[tool(read_only)]
fn divide(a: f64, b: f64) -> f64 {
    a / b
}

/// A calculator served over HTTP with `config` (the default settings when `None`) until the
/// returned token is cancelled.
async fn serve(config: Option<McpHttpSettings>) -> (SocketAddr, CancellationToken) {
    let mut registry = ToolRegistry::new();
    registry.register(DivideTool).expect("divide registers");
    let server = McpServer::builder("calculator", "2.0.0")
        .build(registry)
        .expect("the schemas have an MCP form");
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let address = listener.local_addr().expect("the bound address");
    let shutdown = CancellationToken::new();
    match config {
        Some(config) => tokio::spawn(server.serve_http_with(listener, config, shutdown.clone())),
        None => tokio::spawn(server.serve_http(listener, shutdown.clone())),
    };
    (address, shutdown)
}

/// An answer: status, headers (names in lower case), body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The body as JSON, or the one JSON message of an event stream.
    fn json(&self) -> Value {
        let text = self
            .body
            .lines()
            .find_map(|line| line.strip_prefix("data: ").filter(|data| !data.is_empty()))
            .unwrap_or(&self.body);
        serde_json::from_str(text).unwrap_or_else(|error| panic!("not JSON ({error}): {self:?}"))
    }
}

/// Sends one request (`Connection: close`) and reads the whole answer.
async fn send(address: SocketAddr, method: &str, extra: &[(&str, &str)], body: &str) -> Answer {
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    );
    for (name, value) in extra {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("send the request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read the answer");
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {raw}"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_owned(),
    }
}

fn initialize() -> String {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}
        }
    })
    .to_string()
}

/// A `400` whose body is the JSON-RPC error `code` with `"id": null`.
fn assert_json_rpc_error(answer: &Answer, code: i64) {
    assert_eq!(answer.status, 400, "{answer:?}");
    assert!(
        answer
            .header("content-type")
            .is_some_and(|value| value.starts_with("application/json")),
        "{answer:?}"
    );
    let error = answer.json();
    assert_eq!(error["jsonrpc"], "2.0", "{answer:?}");
    assert_eq!(error.get("id"), Some(&Value::Null), "{answer:?}");
    assert_eq!(error["error"]["code"], code, "{answer:?}");
}

#[tokio::test]
async fn every_bad_body_gets_a_json_rpc_error() {
    let (address, shutdown) = serve(None).await;
    let answer = send(address, "POST", &[], "this is not json {").await;
    assert_json_rpc_error(&answer, -32700);
    let answer = send(
        address,
        "POST",
        &[],
        r#"{"jsonrpc": "2.0", "id": 3, "method": 42}"#,
    )
    .await;
    assert_json_rpc_error(&answer, -32600);
    let batch = format!("[{}]", initialize());
    let answer = send(address, "POST", &[], &batch).await;
    assert_json_rpc_error(&answer, -32600);
    // Still serving.
    let answer = send(address, "POST", &[], &initialize()).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.json()["result"]["serverInfo"]["name"], "calculator");
    shutdown.cancel();
}

#[tokio::test]
async fn by_default_only_loopback_origins_are_served() {
    let (address, shutdown) = serve(None).await;
    let status = |origin: Option<&'static str>| async move {
        let headers: Vec<(&str, &str)> =
            origin.map(|value| ("Origin", value)).into_iter().collect();
        send(address, "POST", &headers, &initialize()).await.status
    };
    assert_eq!(status(None).await, 200, "a client that is not a browser");
    assert_eq!(status(Some("http://localhost:5173")).await, 200);
    assert_eq!(status(Some("http://127.0.0.1:8080")).await, 200);
    assert_eq!(status(Some("http://[::1]:3000")).await, 200);
    assert_eq!(status(Some("https://evil.example")).await, 403);
    assert_eq!(status(Some("http://localhost.evil.example")).await, 403);
    assert_eq!(status(Some("null")).await, 403);
    shutdown.cancel();
}

#[tokio::test]
async fn the_allowed_origins_are_configurable() {
    // An empty list, which rmcp would take for no check at all, means the loopback origins.
    let no_origins = McpHttpSettings::new().with_allowed_origins(Vec::<String>::new());
    let (address, shutdown) = serve(Some(no_origins)).await;
    let answer = send(
        address,
        "POST",
        &[("Origin", "https://evil.example")],
        &initialize(),
    )
    .await;
    assert_eq!(answer.status, 403, "{answer:?}");

    let config = McpHttpSettings::new().with_allowed_origins(["https://app.example.com"]);
    let (address, shutdown_listed) = serve(Some(config)).await;
    let status = |origin: &'static str| async move {
        send(address, "POST", &[("Origin", origin)], &initialize())
            .await
            .status
    };
    assert_eq!(status("https://app.example.com").await, 200);
    assert_eq!(status("https://evil.example").await, 403);
    assert_eq!(
        status("http://localhost:5173").await,
        403,
        "the list replaces the default"
    );
    shutdown.cancel();
    shutdown_listed.cancel();
}

#[tokio::test]
async fn ending_a_session_answers_200() {
    let (address, shutdown) = serve(None).await;
    let answer = send(address, "POST", &[], &initialize()).await;
    let session = answer
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("a session id: {answer:?}"))
        .to_owned();
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let answer = send(address, "DELETE", &headers, "").await;
    assert_eq!(answer.status, 200, "{answer:?}");
    // The session is gone.
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let answer = send(address, "POST", &headers, &list).await;
    assert_eq!(answer.status, 404, "{answer:?}");
    shutdown.cancel();
}

/// Opens a session (initialize, then initialized); its id.
async fn open_session(address: SocketAddr) -> String {
    let answer = send(address, "POST", &[], &initialize()).await;
    let session = answer
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("a session id: {answer:?}"))
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let answer = send(
        address,
        "POST",
        &session_headers(&session),
        &initialized.to_string(),
    )
    .await;
    assert_eq!(answer.status, 202, "{answer:?}");
    session
}

fn session_headers(session: &str) -> [(&str, &str); 2] {
    [
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-06-18"),
    ]
}

/// The status of a `tools/list` in `session`.
async fn list_in(address: SocketAddr, session: &str) -> u16 {
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    send(address, "POST", &session_headers(session), &list)
        .await
        .status
}

#[tokio::test]
async fn past_the_most_sessions_the_one_unused_the_longest_is_closed() {
    let (address, shutdown) = serve(Some(McpHttpSettings::new().with_max_sessions(2))).await;
    let first = open_session(address).await;
    let second = open_session(address).await;
    // The first is used again: the second is now the one unused the longest.
    assert_eq!(list_in(address, &first).await, 200);
    let third = open_session(address).await;
    assert_eq!(
        list_in(address, &second).await,
        404,
        "the second was closed"
    );
    assert_eq!(list_in(address, &first).await, 200);
    assert_eq!(list_in(address, &third).await, 200);
    // Its client opens another, as MCP asks after a `404`; the first goes now.
    let again = open_session(address).await;
    assert_eq!(list_in(address, &again).await, 200);
    assert_eq!(list_in(address, &first).await, 404);
    shutdown.cancel();
}
