//! Images and files over MCP with the peers of other SDKs. A tool-sdk server's image, audio
//! and file, served over streamable HTTP, are read by the Python SDK's client (`mcp` 2.x and
//! 1.x) and the TypeScript SDK's client, each parsing them into its own content types; a
//! FastMCP server's image (`tests/mcp/fastmcp_server.py`, its `Image` helper) is kept by this
//! crate's client as an image.

use base64::{engine::general_purpose::STANDARD, Engine as _};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::process::Command;
use tokio_util::sync::CancellationToken;
use tool_sdk::define::{Media, Part};
use tool_sdk::mcp::{McpClient, McpServer};
use tool_sdk::{tool, ToolRegistry};
use tool_sdk_tests::mcp::{python, python_mcp1, script, OtherClient};

/// A 1x1 PNG, base64-encoded: the same pixel `tests/mcp/fastmcp_server.py` draws.
const PIXEL: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP438AAAAQBAYDFKhhdAAAAAElFTkSuQmCC";

/// The start of a PDF file, as the report `report` attaches.
const PDF: &[u8] = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n";

/// Draws a month's sales as a chart, with a voice note and the report it comes from.
#[tool(read_only)]
fn report(month: String) -> Vec<Part> {
    let chart = Media::from_base64("image/png", PIXEL)
        .map_or_else(|| Part::text("the chart is not base64"), Part::Image);
    vec![
        Part::text(format!("Sales in {month}:")),
        chart,
        Part::json(r#"{"total":3}"#),
        Part::File(Media::from_bytes("audio/wav", b"RIFF")),
        Part::file("application/pdf", format!("{month} report.pdf"), PDF),
    ]
}

/// Serves `report` over streamable HTTP on a loopback port while `client` runs against it.
async fn served_to(client: OtherClient) -> Value {
    let mut registry = ToolRegistry::new();
    registry.register(ReportTool).expect("report registers");
    let server = McpServer::builder("reports", "1.0.0")
        .build(registry)
        .expect("the schema has an MCP form");
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("its address"));
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn(server.serve_http(listener, shutdown.clone()));
    let calls = json!([{"name": "report", "arguments": {"month": "March"}}]);
    let seen = tokio::task::spawn_blocking(move || client.run(&calls, &[&url]))
        .await
        .expect("the client runs");
    shutdown.cancel();
    let served = serving.await.expect("the server task ends");
    assert!(served.is_ok(), "{served:?}");
    seen
}

/// What every client must have read: each part as the block MCP has for it, parsed into the
/// SDK's type for that block.
fn check(seen: &Value) {
    let call = &seen["calls"][0];
    let result = &call["result"];
    assert_eq!(result["isError"], false, "{call}");
    assert_eq!(
        call["parsed"],
        json!([
            "TextContent",
            "ImageContent",
            "TextContent",
            "AudioContent",
            "EmbeddedResource/BlobResourceContents",
        ]),
        "{call}"
    );
    let content = &result["content"];
    assert_eq!(content[0]["text"], "Sales in March:");
    assert_eq!(
        content[1],
        json!({"type": "image", "data": PIXEL, "mimeType": "image/png"})
    );
    assert_eq!(content[2]["text"], r#"{"total":3}"#);
    assert_eq!(result["structuredContent"], json!({"total": 3}));
    assert_eq!(
        content[3],
        json!({"type": "audio", "data": STANDARD.encode(b"RIFF"), "mimeType": "audio/wav"})
    );
    assert_eq!(
        content[4],
        json!({"type": "resource", "resource": {
            "uri": "tool-sdk://files/March%20report.pdf",
            "mimeType": "application/pdf",
            "blob": STANDARD.encode(PDF),
        }})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_reads_images_audio_and_files() {
    check(
        &served_to(OtherClient::Python {
            python: python(),
            mode: "session",
        })
        .await,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_1_client_reads_images_audio_and_files() {
    check(
        &served_to(OtherClient::Python {
            python: python_mcp1(),
            mode: "session",
        })
        .await,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_client_reads_images_audio_and_files() {
    check(&served_to(OtherClient::TypeScript).await);
}

#[tokio::test]
async fn a_fastmcp_image_is_kept_as_an_image() {
    let mut command = Command::new(python());
    command.arg(script("fastmcp_server.py"));
    let client = McpClient::builder()
        .spawn(command)
        .await
        .expect("the FastMCP server starts and initializes");
    let mut registry = ToolRegistry::new();
    client
        .register_into(&mut registry)
        .await
        .expect("its tools are added");

    let output = registry
        .call("chart", r#"{"item": "apple"}"#)
        .await
        .expect("the chart answers");
    let pixel = Media::from_base64("image/png", PIXEL).expect("the pixel is base64");
    assert_eq!(
        output.parts(),
        [Part::text("Stock of apple:"), Part::Image(pixel)]
    );
    // A model that reads text only is told an image is there.
    assert_eq!(output.content(), "Stock of apple:\n[image (image/png)]");
    client.close().await.expect("the session ends");
}
