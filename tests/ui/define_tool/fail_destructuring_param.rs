use tool_sdk::define_tool;

fn main() {
    let _tool = define_tool!(
        /// Adds two numbers.
        #[tool(name = "add")]
        |(a, b): (i64, i64)| a + b
    );
}
