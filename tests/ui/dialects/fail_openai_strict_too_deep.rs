use tool_sdk::tool;

/// Does its work.
#[tool(dialects(openai_strict))]
fn work(
    grid: Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<u8>>>>>>>>>>>,
) -> String {
    format!("{:?}", grid)
}

fn main() {}
