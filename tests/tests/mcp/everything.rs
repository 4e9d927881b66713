//! The reference server of the MCP project, `@modelcontextprotocol/server-everything` (npm,
//! TypeScript SDK), consumed over stdio through this crate's client: its names (with `-`),
//! schemas, calls, structured content and an image result, kept as an image.

use base64::{engine::general_purpose::STANDARD, Engine as _};
use serde_json::{json, Value};
use tokio::process::Command;
use tool_sdk::define::{Media, Part, ToolError};
use tool_sdk::mcp::McpClient;
use tool_sdk::ToolRegistry;
use tool_sdk_tests::mcp::{consumed, node_package};

async fn everything() -> (McpClient, ToolRegistry) {
    let mut command = Command::new("node");
    command
        .arg(node_package(
            "@modelcontextprotocol/server-everything/dist/index.js",
        ))
        .arg("stdio");
    consumed(command).await
}

#[tokio::test]
async fn its_tools_keep_their_names_and_schemas() {
    let (client, registry) = everything().await;
    assert_eq!(
        client.server_info().map(|info| info.name).as_deref(),
        Some("mcp-servers/everything")
    );
    let listing = client.listing().await.expect("the tools are listed");
    assert!(listing.renamed.is_empty(), "{listing:?}");
    assert!(listing.left_out.is_empty(), "{listing:?}");
    for name in [
        "echo",
        "get-sum",
        "get-structured-content",
        "get-tiny-image",
    ] {
        assert!(registry.contains(name), "{name} is missing: {listing:?}");
    }
    let sum = registry.get("get-sum").expect("get-sum").definition();
    assert_eq!(sum.description, "Returns the sum of two numbers");
    assert_eq!(sum.parameters["properties"]["a"]["type"], "number");
    assert_eq!(sum.parameters["required"], json!(["a", "b"]));
    assert!(sum.options.read_only);
    let weather = registry
        .get("get-structured-content")
        .expect("get-structured-content")
        .definition();
    assert_eq!(
        weather.parameters["properties"]["location"]["enum"],
        json!(["New York", "Chicago", "Los Angeles"])
    );
    // Its output schema is kept, as the server listed it.
    let output_schema = weather.output_schema.as_ref().expect("an output schema");
    assert_eq!(output_schema["type"], "object", "{output_schema}");
    assert_eq!(
        output_schema["properties"]["temperature"]["type"], "number",
        "{output_schema}"
    );
    assert_eq!(sum.output_schema, None);
}

#[tokio::test]
async fn calls_structured_content_and_images_come_back() {
    let (_client, registry) = everything().await;
    let output = registry
        .call("get-sum", r#"{"a": 2, "b": 3.5}"#)
        .await
        .expect("get-sum answers");
    assert_eq!(output.content(), "The sum of 2 and 3.5 is 5.5.");

    let output = registry
        .call("echo", r#"{"message": "hi"}"#)
        .await
        .expect("echo answers");
    assert_eq!(output.content(), "Echo: hi");

    let output = registry
        .call("get-structured-content", r#"{"location": "Chicago"}"#)
        .await
        .expect("the weather answers");
    assert!(output.is_json(), "{output:?}");
    let weather: Value = serde_json::from_str(output.content()).expect("JSON");
    assert_eq!(weather["temperature"], 36);
    assert_eq!(weather["conditions"], "Light rain / drizzle");
    // The structured result is kept as the server sent it (and, in this debug build, fitted
    // the output schema it listed, or the call would have failed).
    assert_eq!(output.structured(), Some(weather));

    // The image is kept as an image, between the texts around it.
    let output = registry
        .call("get-tiny-image", "{}")
        .await
        .expect("the image answers");
    let images: Vec<&Media> = output
        .parts()
        .iter()
        .filter_map(|part| match part {
            Part::Image(media) => Some(media),
            _ => None,
        })
        .collect();
    assert_eq!(images.len(), 1, "{:?}", output.parts());
    assert_eq!(images[0].media_type(), "image/png");
    let png = STANDARD.decode(images[0].data()).expect("base64");
    assert!(png.starts_with(b"\x89PNG"), "{png:?}");
    assert_eq!(
        output.parts()[0],
        Part::text("Here's the image you requested:")
    );
    assert!(
        output.content().contains("\n[image (image/png)]"),
        "{}",
        output.content()
    );

    // Checked against its schema here, before anything is sent.
    let error = registry
        .call("get-structured-content", r#"{"location": "Paris"}"#)
        .await
        .expect_err("Paris is not among the cities");
    assert!(
        matches!(error, ToolError::InvalidArguments { .. }),
        "{error:?}"
    );
    assert!(
        error.model_message().contains("expected one of"),
        "{}",
        error.model_message()
    );
}
