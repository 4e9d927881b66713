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
    future_incompatible,
    rust_2024_compatibility
)]

/// Tools of this crate.
pub mod tools {
    use std::sync::{Arc, Mutex};

    use tool_sdk::{define::{CallId, InlineTool}, define_tool, Tool};

    /// Every inline form, with both hooks.
    pub fn inline_tools() -> Vec<Arc<dyn Tool>> {
        let log = Arc::new(Mutex::new(Vec::<String>::new()));
        let undo_log = Arc::clone(&log);
        let add = define_tool!(
            /// Adds two numbers.
            #[tool(name = "add", confirm = |a: &i64, _b: &i64| *a > 10)]
            |a: i64, #[arg(default = 1)] b: i64| a + b
        );
        let greet = define_tool!(
            /// Greets a person.
            #[tool(name = "greet", compensate = move |args, greeting: String| {
                let name: &str = &args.name;
                if let Ok(mut log) = undo_log.lock() {
                    log.push(format!("{greeting} {name}"));
                }
            })]
            async move |name: &str, #[context] id: CallId| -> Result<String, String> {
                Ok(format!("{name} {:?}", id.0))
            }
        );
        let remember = define_tool!(
            /// Remembers a fact.
            #[tool(name = "remember", compensate = |_args, n: usize| async move { n })]
            move |fact: String| {
                let log = Arc::clone(&log);
                async move {
                    let mut log = log.lock().map_err(|_| String::from("poisoned"))?;
                    log.push(fact);
                    Ok::<usize, String>(log.len())
                }
            }
        );
        vec![Arc::new(add), Arc::new(greet), Arc::new(remember)]
    }

    /// The type is nameable and `Debug`.
    pub fn describe<C>(tool: &InlineTool<C>) -> String {
        format!("{tool:?}")
    }
}

fn main() {
    let _tools = tools::inline_tools();
}
