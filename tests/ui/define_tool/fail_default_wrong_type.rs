use tool_sdk::define_tool;

fn main() {
    let _tool = define_tool!(
        /// Repeats a word.
        #[tool(name = "repeat")]
        |word: String, #[arg(default = "x")] n: u32| word.repeat(n as usize)
    );
}
