use tool_sdk::tool;

/// Repeats a word.
#[tool]
fn repeat(word: String, #[arg(default = "x")] n: u32) -> String {
    word.repeat(n as usize)
}

fn main() {}
