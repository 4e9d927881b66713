use tool_sdk::tool;

/// Reads a file.
#[tool(read_only = true)]
fn read_file(path: String) -> String {
    path
}

fn main() {}
