use tool_sdk::tools;

struct Echo;

#[tools(dialects(gemini, claude), dialects(mcp))]
impl Echo {
    /// Echoes.
    #[tool]
    fn echo(&self, text: String) -> String {
        text
    }
}

fn main() {}
