//! MCP over streamable HTTP, both ways: a registry served with `McpServer::serve_http` and
//! driven by the reference Python client; a Python FastMCP server reached with
//! `McpClientBuilder::connect_http`; and what the client sends (token, headers), checked by an
//! HTTP front of the test's own.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use hyper::body::{Bytes, Incoming};
use hyper::service::{service_fn, Service};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use serde_json::json;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tool_sdk::mcp::{McpClient, McpError, McpHttpSettings, McpServer};
use tool_sdk::{define::ToolError, tool, ToolRegistry};
use tool_sdk_tests::mcp::{python, python_client, script, HttpServer};

/// Long enough for a Python server to start on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(30);

/// Divides two numbers.
#[tool(read_only)]
fn divide(a: f64, b: f64) -> Result<f64, String> {
    if b == 0.0 {
        return Err("cannot divide by zero".into());
    }
    Ok(a / b)
}

fn calculator() -> McpServer {
    let mut registry = ToolRegistry::new();
    registry.register(DivideTool).expect("divide registers");
    McpServer::builder("calculator", "2.0.0")
        .with_instructions("Divide with `divide`.")
        .build(registry)
        .expect("the schemas have an MCP form")
}

async fn loopback() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let address = listener.local_addr().expect("the bound address");
    (listener, address)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_lists_and_calls_over_http() {
    let (listener, address) = loopback().await;
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn(calculator().serve_http(listener, shutdown.clone()));

    let url = format!("http://{address}/mcp");
    let calls = json!([
        {"name": "divide", "arguments": {"a": 1, "b": 8}},
        {"name": "divide", "arguments": {"a": 1, "b": 0}},
        {"name": "divide", "arguments": {"a": "one", "b": 2}},
        {"name": "multiply", "arguments": {"a": 1, "b": 2}},
    ]);
    let seen = tokio::task::spawn_blocking(move || python_client(&calls, &[&url]))
        .await
        .expect("the client runs");

    assert_eq!(seen["serverInfo"]["name"], "calculator");
    assert_eq!(seen["instructions"], "Divide with `divide`.");
    assert_eq!(seen["tools"][0]["name"], "divide");
    assert_eq!(seen["tools"][0]["annotations"]["readOnlyHint"], true);
    assert_eq!(
        seen["tools"][0]["inputSchema"]["required"],
        json!(["a", "b"])
    );

    let quotient = &seen["calls"][0]["result"];
    assert_eq!(quotient["isError"], false, "{quotient}");
    assert_eq!(quotient["structuredContent"], json!({"result": 0.125}));
    let by_zero = &seen["calls"][1]["result"];
    assert_eq!(by_zero["isError"], true, "{by_zero}");
    assert_eq!(
        by_zero["content"][0]["text"],
        "Error: cannot divide by zero"
    );
    let bad = &seen["calls"][2]["result"];
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(
        bad["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains("/a")),
        "{bad}"
    );
    assert_eq!(seen["calls"][3]["error"]["code"], -32602, "{seen}");

    shutdown.cancel();
    let served = tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("the server stops on shutdown");
    assert!(matches!(served, Ok(Ok(()))), "{served:?}");
}

/// The FastMCP server of `tests/mcp/fastmcp_server.py` on streamable HTTP, killed on drop.
fn python_server() -> HttpServer {
    let mut command = std::process::Command::new(python());
    command.arg(script("fastmcp_server.py"));
    HttpServer::start(command)
}

/// Connects to the server, which may still be starting its application.
async fn connect(server: &HttpServer, prefix: &str) -> McpClient {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        match McpClient::builder()
            .with_prefix(prefix)
            .connect_http(&server.url)
            .await
        {
            Ok(client) => return client,
            Err(error) if tokio::time::Instant::now() < deadline => {
                tracing::debug!(%error, "the Python server is not up yet");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => panic!(
                "the Python server never answered at {}: {error}",
                server.url
            ),
        }
    }
}

#[tokio::test]
async fn a_python_servers_tools_are_used_over_http() {
    let server = python_server();
    let client = connect(&server, "inv_").await;
    assert_eq!(
        client.server_info().map(|info| info.name),
        Some("py-inventory".to_owned())
    );

    let mut registry = ToolRegistry::new();
    assert_eq!(client.register_into(&mut registry).await.ok(), Some(4));
    let names: Vec<&str> = registry.definitions().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["inv_stock", "inv_restock", "inv_echo", "inv_chart"]);

    let stock = registry
        .call("inv_stock", r#"{"item": "apple"}"#)
        .await
        .expect("stock answers");
    assert_eq!(stock.content(), "12");
    let restocked = registry
        .call("inv_restock", r#"{"item": "pear", "count": 3}"#)
        .await
        .expect("restock answers");
    assert_eq!(restocked.content(), "pear: 3 in stock");
    let error = registry
        .call("inv_stock", r#"{"item": "banana"}"#)
        .await
        .expect_err("an unknown item fails");
    assert!(
        matches!(error, ToolError::ExecutionFailed { .. }),
        "{error:?}"
    );
    assert!(
        error.model_message().contains("unknown item 'banana'"),
        "{}",
        error.model_message()
    );
    client.close().await.expect("the session ends");
}

/// What the front saw of each request: its `Authorization` and `X-Tenant` headers.
type Seen = Arc<Mutex<Vec<(Option<String>, Option<String>)>>>;

/// The calculator behind an HTTP front that records each request's headers and answers `401`
/// unless it carries `Authorization: Bearer s3cret`.
async fn guarded_calculator(shutdown: CancellationToken) -> (String, Seen) {
    let (listener, address) = loopback().await;
    let config = McpHttpSettings::new().with_cancellation_token(shutdown.child_token());
    let inner = TowerToHyperService::new(calculator().into_http_service(config));
    let seen = Seen::default();
    let recorded = Arc::clone(&seen);
    tokio::spawn(async move {
        loop {
            let (stream, _) = tokio::select! {
                () = shutdown.cancelled() => return,
                accepted = listener.accept() => accepted.expect("accept"),
            };
            let inner = inner.clone();
            let recorded = Arc::clone(&recorded);
            let front = service_fn(move |request: Request<Incoming>| {
                let header = |name: &str| {
                    request
                        .headers()
                        .get(name)
                        .and_then(|value| value.to_str().ok())
                        .map(str::to_owned)
                };
                let authorization = header("authorization");
                let tenant = header("x-tenant");
                recorded
                    .lock()
                    .expect("not poisoned")
                    .push((authorization.clone(), tenant));
                let inner = inner.clone();
                async move {
                    if authorization.as_deref() == Some("Bearer s3cret") {
                        inner.call(request).await
                    } else {
                        let mut refused = Response::new(Empty::<Bytes>::new().boxed());
                        *refused.status_mut() = StatusCode::UNAUTHORIZED;
                        Ok(refused)
                    }
                }
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), front),
            );
        }
    });
    (format!("http://{address}/mcp"), seen)
}

#[tokio::test]
async fn the_token_and_headers_go_with_every_request() {
    let shutdown = CancellationToken::new();
    let (url, seen) = guarded_calculator(shutdown.clone()).await;

    let client = McpClient::builder()
        .with_prefix("calc_")
        .with_bearer_token("s3cret")
        .with_header("X-Tenant", "acme")
        .connect_http(&url)
        .await
        .expect("the session is set up with the token");
    let mut registry = ToolRegistry::new();
    client
        .register_into(&mut registry)
        .await
        .expect("the tools are added");
    let output = registry
        .call("calc_divide", r#"{"a": 3, "b": 4}"#)
        .await
        .expect("divide answers");
    assert_eq!(output.content(), "0.75");
    client.close().await.expect("the session ends");

    let seen = seen.lock().expect("not poisoned").clone();
    // initialize, initialized, tools/list and tools/call at least.
    assert!(seen.len() >= 4, "{seen:?}");
    for (authorization, tenant) in &seen {
        assert_eq!(authorization.as_deref(), Some("Bearer s3cret"));
        assert_eq!(tenant.as_deref(), Some("acme"));
    }
    shutdown.cancel();
}

#[tokio::test]
async fn a_refused_token_fails_the_connection() {
    let shutdown = CancellationToken::new();
    let (url, _) = guarded_calculator(shutdown.clone()).await;

    let refused = McpClient::builder()
        .with_bearer_token("wrong")
        .connect_http(&url)
        .await
        .expect_err("the front answers 401");
    assert!(matches!(refused, McpError::Initialize(_)), "{refused:?}");
    shutdown.cancel();
}

#[tokio::test]
async fn settings_that_cannot_be_sent_are_refused_before_connecting() {
    // Nothing listens on port 9: a refusal here comes from the settings, not the server.
    let refused = |builder: tool_sdk::mcp::McpClientBuilder| async move {
        let error = builder
            .connect_http("http://127.0.0.1:9/mcp")
            .await
            .expect_err("the settings are refused");
        assert!(matches!(error, McpError::InvalidSettings(_)), "{error:?}");
        error.to_string()
    };
    refused(McpClient::builder().with_header("bad header", "x")).await;
    let message = refused(McpClient::builder().with_header("x-tenant", "line\nbreak")).await;
    assert!(
        !message.contains("line"),
        "the value is not quoted: {message}"
    );
    let message = refused(McpClient::builder().with_bearer_token("s3cret\n")).await;
    assert!(message.contains("bearer token"), "{message}");
    assert!(
        !message.contains("s3cret"),
        "the token is not quoted: {message}"
    );
    for reserved in ["Accept", "mcp-session-id", "Content-Type", "Last-Event-ID"] {
        let message = refused(McpClient::builder().with_header(reserved, "x")).await;
        assert!(message.contains("set by the MCP transport"), "{message}");
    }
    let message = refused(
        McpClient::builder()
            .with_bearer_token("s3cret")
            .with_header("Authorization", "Basic eDp5"),
    )
    .await;
    assert!(message.contains("both"), "{message}");

    // An Authorization header of its own, without a bearer token, is fine: the connection
    // is what fails here.
    let error = McpClient::builder()
        .with_header("Authorization", "Basic eDp5")
        .connect_http("http://127.0.0.1:9/mcp")
        .await
        .expect_err("nothing listens there");
    assert!(matches!(error, McpError::Initialize(_)), "{error:?}");
}

#[test]
fn the_token_and_header_values_never_show_in_debug() {
    let builder = McpClient::builder()
        .with_bearer_token("s3cret-token")
        .with_header("x-api-key", "k3y-value");
    let shown = format!("{builder:?}");
    assert!(!shown.contains("s3cret-token"), "{shown}");
    assert!(!shown.contains("k3y-value"), "{shown}");
    assert!(shown.contains("x-api-key"), "{shown}");
}

#[tokio::test]
async fn running_out_of_file_descriptors_does_not_stop_the_server() {
    // The example, allowed 32 open files: more connections than that make accepting fail.
    let mut limited = std::process::Command::new("sh");
    limited.args([
        "-c",
        r#"ulimit -n 32 && exec "$0" "$@""#,
        env!("CARGO_BIN_EXE_mcp_quickstart_server"),
    ]);
    let mut server = HttpServer::start(limited);
    // Refused connections are fine: the point is that the server is out of descriptors.
    let flood: Vec<std::net::TcpStream> = (0..64)
        .filter_map(|_| std::net::TcpStream::connect(server.address()).ok())
        .collect();
    // Long enough for the server to accept all it can and fail on the rest.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        server
            .child
            .try_wait()
            .expect("the server's status")
            .is_none(),
        "the server exited when it could not accept"
    );

    drop(flood);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let client = loop {
        match McpClient::builder().connect_http(&server.url).await {
            Ok(client) => break client,
            Err(error) => {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the server never answered again: {error}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    let tools = client.tools().await.expect("the server lists its tools");
    assert_eq!(tools.len(), 4);
    client.close().await.expect("the session ends");
}

/// Sends `start` of a request to a fresh server and stops there; what the server answered
/// before it closed the connection, or `None` when it kept it open for 60 s.
async fn stall_after(start: &[u8]) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let (listener, address) = loopback().await;
    let shutdown = CancellationToken::new();
    tokio::spawn(calculator().serve_http(listener, shutdown.clone()));
    let mut stalled = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    stalled
        .write_all(start)
        .await
        .expect("send the start of the request");
    // The server may answer before it closes, or reset the connection: either ends it.
    let mut answer = Vec::new();
    let ended = tokio::time::timeout(Duration::from_secs(60), stalled.read_to_end(&mut answer))
        .await
        .is_ok();
    shutdown.cancel();
    ended.then(|| String::from_utf8_lossy(&answer).into_owned())
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_cut_off() {
    // hyper's header timeout is 30 s; without it the connection would stay open for good.
    let answer = stall_after(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").await;
    assert!(
        answer.is_some(),
        "the server kept the stalled connection open"
    );
}

/// The status line's code of a bare `initialize` POST naming `host`.
async fn initialize_status(address: SocketAddr, host: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}
        }
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("send the request");
    let mut head = [0u8; 12];
    stream
        .read_exact(&mut head)
        .await
        .expect("read the status line");
    String::from_utf8_lossy(&head[9..12]).into_owned()
}

#[tokio::test]
async fn only_the_hosts_the_settings_allow_are_served() {
    let shutdown = CancellationToken::new();
    let (listener, loopback_address) = loopback().await;
    tokio::spawn(calculator().serve_http(listener, shutdown.clone()));
    assert_eq!(
        initialize_status(loopback_address, "127.0.0.1").await,
        "200"
    );
    assert_eq!(
        initialize_status(loopback_address, "tools.example.com").await,
        "403",
        "by default, a loopback name only"
    );

    let (listener, public_address) = loopback().await;
    let config = McpHttpSettings::new().with_allowed_hosts(["tools.example.com"]);
    tokio::spawn(calculator().serve_http_with(listener, config, shutdown.clone()));
    assert_eq!(
        initialize_status(public_address, "tools.example.com").await,
        "200"
    );
    assert_eq!(initialize_status(public_address, "127.0.0.1").await, "403");
    shutdown.cancel();
}

#[tokio::test]
async fn shutdown_closes_the_listener_and_the_open_connections() {
    use tokio::io::AsyncReadExt;

    let (listener, address) = loopback().await;
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn(calculator().serve_http(listener, shutdown.clone()));
    // A session with its event stream open, and an idle connection.
    let client = McpClient::builder()
        .connect_http(&format!("http://{address}/mcp"))
        .await
        .expect("the session is set up");
    let mut idle = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    tokio::time::sleep(Duration::from_millis(100)).await;

    shutdown.cancel();
    let served = tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("serve_http returns after shutdown");
    assert!(matches!(served, Ok(Ok(()))), "{served:?}");
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(1), idle.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the idle connection is closed");
    assert!(
        tokio::net::TcpStream::connect(address).await.is_err(),
        "the listener is closed"
    );
    drop(client);
}

#[tokio::test]
async fn a_client_that_stops_sending_its_body_is_cut_off() {
    // The body must keep coming, 30 s at most between its parts.
    let answer = stall_after(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"json",
    )
    .await
    .expect("the server waited for the body for good");
    // rmcp answers a body it could not read with an error response naming why.
    assert!(
        answer.contains("the client sent nothing of the body for 30s"),
        "{answer}"
    );
}
