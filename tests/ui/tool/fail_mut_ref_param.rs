use tool_sdk::tool;

/// Appends a suffix.
#[tool]
fn append(text: &mut String) {
    text.push('!');
}

fn main() {}
