//! The tools the MCP conformance suite (`@modelcontextprotocol/conformance`) calls in its
//! server scenarios, written with tool-sdk, served over streamable HTTP: `--http ADDRESS`
//! (port 0 picks a free one); it says `serving MCP at URL` on standard error once it listens.
//! What the suite asks of a server beyond tools (resources, prompts, logging, sampling,
//! completion) this crate does not serve.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::net::TcpListener;
use tool_sdk::define::{Part, Progress};
use tool_sdk::mcp::McpServer;
use tool_sdk::register::DynamicTool;
use tool_sdk::run::CancellationToken;
use tool_sdk::{tool, ToolRegistry};

/// A 1x1 PNG.
const PIXEL: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file holding no samples: a header alone.
fn silence() -> Vec<u8> {
    let mut wav = Vec::new();
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&36u32.to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&16000u32.to_le_bytes());
    wav.extend_from_slice(&2u16.to_le_bytes());
    wav.extend_from_slice(&16u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&0u32.to_le_bytes());
    wav
}

/// Returns a simple text.
#[tool(read_only)]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".into()
}

/// Returns an image.
#[tool(read_only)]
fn test_image_content() -> Vec<Part> {
    vec![Part::image("image/png", PIXEL)]
}

/// Returns audio.
#[tool(read_only)]
fn test_audio_content() -> Vec<Part> {
    vec![Part::file("audio/wav", "silence.wav", silence())]
}

/// Returns an embedded resource.
#[tool(read_only)]
fn test_embedded_resource() -> Vec<Part> {
    let text = "This is an embedded resource content.";
    vec![Part::file("text/plain", "embedded.txt", text)]
}

/// Returns text, an image and a resource.
#[tool(read_only)]
fn test_multiple_content_types() -> Vec<Part> {
    vec![
        Part::text("Multiple content types test:"),
        Part::image("image/png", PIXEL),
        Part::file(
            "application/json",
            "data.json",
            r#"{"test":"data","value":123}"#,
        ),
    ]
}

/// Always fails.
#[tool(read_only)]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".into())
}

/// Reports progress: 0, 50 and 100 of 100.
#[tool(read_only)]
async fn test_tool_with_progress(#[context] progress: Progress) -> String {
    for done in [0.0, 50.0, 100.0] {
        progress.report(done, Some(100.0), None);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "Progress test completed".into()
}

/// A tool whose parameters use JSON Schema 2020-12's `$schema`, `$defs` and a `$ref`.
fn json_schema_tool() -> Result<DynamicTool, Box<dyn std::error::Error>> {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"}
        },
        "additionalProperties": false
    });
    let tool = DynamicTool::new(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        schema,
        |arguments: Value| async move { arguments.to_string() },
    )?;
    Ok(tool)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = ToolRegistry::new();
    registry
        .register(TestSimpleTextTool)?
        .register(TestImageContentTool)?
        .register(TestAudioContentTool)?
        .register(TestEmbeddedResourceTool)?
        .register(TestMultipleContentTypesTool)?
        .register(TestErrorHandlingTool)?
        .register(TestToolWithProgressTool)?
        .register(json_schema_tool()?)?;
    let server =
        McpServer::builder("tool-sdk-conformance", env!("CARGO_PKG_VERSION")).build(registry)?;
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [flag, address] = arguments.as_slice() else {
        return Err("usage: mcp_conformance_server --http ADDRESS".into());
    };
    if flag != "--http" {
        return Err("usage: mcp_conformance_server --http ADDRESS".into());
    }
    let listener = TcpListener::bind(address.as_str()).await?;
    eprintln!("serving MCP at http://{}/mcp", listener.local_addr()?);
    server
        .serve_http(listener, CancellationToken::new())
        .await?;
    Ok(())
}
