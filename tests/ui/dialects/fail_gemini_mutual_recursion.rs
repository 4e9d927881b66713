use tool_sdk::describe::Described;
use tool_sdk::tool;

/// A folder and its files.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct Folder {
    name: String,
    files: Vec<File>,
}

/// A file, which may be an archive of a folder.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct File {
    name: String,
    unpacked: Option<Box<Folder>>,
}

/// Creates folders.
#[tool(dialects(gemini))]
fn create(
    root: Folder,
) -> String {
    format!("{root:?}")
}

fn main() {}
