//! Generated code stays quiet under lints a careful crate turns on.
#![deny(
    warnings,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    unused_qualifications,
    unused_results,
    unused_import_braces,
    unused_lifetimes,
    single_use_lifetimes,
    elided_lifetimes_in_paths,
    trivial_casts,
    trivial_numeric_casts,
    let_underscore_drop,
    unsafe_code,
    nonstandard_style,
    rust_2018_idioms,
    future_incompatible
)]

/// Tools of this crate.
pub mod tools {
    use tool_sdk::{define::CallId, tool, tools};

    /// Adds two numbers.
    #[tool]
    pub fn add(a: i64, #[arg(default = 1)] b: i64) -> i64 {
        a + b
    }

    /// Greets a person.
    #[tool]
    pub async fn greet(name: &str, #[context] id: CallId) -> Result<String, String> {
        Ok(format!("{name} {:?}", id.0))
    }

    /// A counter.
    #[derive(Debug, Default)]
    pub struct Counter {
        value: std::sync::Mutex<i64>,
    }

    #[tools]
    impl Counter {
        /// Adds to the counter.
        #[tool]
        pub fn increment(&self, by: Option<i64>) -> i64 {
            let mut value = self.value.lock().unwrap_or_else(|e| e.into_inner());
            *value += by.unwrap_or(1);
            *value
        }
    }
}

fn main() {
    let _tools = (tools::AddTool, tools::GreetTool, tools::Counter::default());
}
