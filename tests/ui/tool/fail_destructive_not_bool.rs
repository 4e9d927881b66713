use tool_sdk::tool;

/// Deletes a file.
#[tool(destructive = "yes")]
fn delete_file(path: String) -> String {
    path
}

fn main() {}
