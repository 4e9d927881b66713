//! One scenario for every chat model: a tool returns a caption, a chart (PNG) and a report
//! (PDF) as parts, and the model answers from them (`scenario:chart` in
//! `tests/fakellm/openai.yaml` and `tests/gemini/gemini.yaml`). What each model sent is for
//! its own test to check, against what its API takes.

use tool_sdk::define::Part;
use tool_sdk::run::LoopStatus;
use tool_sdk::{tool, ChatModel, Message, ToolLoop, ToolRegistry};

/// A 1×1 transparent PNG.
pub const PNG: [u8; 67] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// The start of a PDF file: what an API's validation reads is the media type and base64.
pub const PDF: &[u8] = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";

/// The caption the tool returns before its media.
pub const CAPTION: &str = "Sales by month: up 12% in March.";

/// Charts the sales of a quarter.
#[tool]
fn chart(
    /// The quarter, such as "Q1".
    quarter: String,
) -> Vec<Part> {
    vec![
        Part::text(CAPTION),
        Part::image("image/png", PNG),
        Part::file("application/pdf", format!("{quarter}.pdf"), PDF),
    ]
}

/// Runs `scenario:chart` with `model` and checks the answer; the conversation is returned
/// for the caller's checks.
pub async fn run_chart(model: impl ChatModel + 'static) -> Vec<Message> {
    let mut tools = ToolRegistry::new();
    tools.register(ChartTool).expect("registers");
    let agent = ToolLoop::new(model, tools);
    let mut conversation = vec![Message::user("scenario:chart How did Q1 sales go?")];
    let outcome = agent.run(&mut conversation).await;
    let LoopStatus::Answered(reply) = &outcome.status else {
        panic!("{:?}", outcome.status);
    };
    assert_eq!(reply.text.as_deref(), Some("Sales grew 12% in March."));
    let Some(Message::Tool(result)) = conversation.get(2) else {
        panic!("the chart's result: {conversation:#?}");
    };
    assert_eq!(result.parts.len(), 3, "kept in the conversation as parts");
    conversation
}
