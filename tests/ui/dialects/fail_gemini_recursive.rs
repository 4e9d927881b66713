use tool_sdk::describe::Described;
use tool_sdk::tool;

/// A folder and the folders in it.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct Folder {
    name: String,
    children: Vec<Folder>,
}

/// Creates folders.
#[tool(dialects(gemini))]
fn create(
    root: Folder,
) -> String {
    format!("{root:?}")
}

fn main() {}
