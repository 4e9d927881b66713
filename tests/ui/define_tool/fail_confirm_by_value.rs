use tool_sdk::define_tool;

fn main() {
    let _tool = define_tool!(
        /// Pays an amount.
        #[tool(name = "pay", confirm = |amount: f64, _to: &String| amount > 100.0)]
        |amount: f64, to: String| format!("paid {amount} to {to}")
    );
}
