use tool_sdk::define_tool;

fn main() {
    let _tool = define_tool!(
        /// Stores a value of any type.
        #[tool(name = "store", dialects(gemini))]
        |key: String, value: serde_json::Value| format!("{key}={value}")
    );
}
