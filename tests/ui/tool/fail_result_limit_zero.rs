use tool_sdk::tool;

/// Reads a file.
#[tool(result_limit = 0)]
fn read_file(path: String) -> String {
    path
}

fn main() {}
