//! Inline tools: `define_tool!` builds tools where the session is built, each a closure
//! capturing the application's state; no separate function, no hand-written JSON.
//!
//! ```text
//! cargo run --example inline_tools
//! ```

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tool_sdk::{define::CallId, define_tool, Tool, ToolRegistry};

/// What the tools share: a to-do list.
#[derive(Default)]
struct Todos {
    items: BTreeMap<u32, String>,
    next_id: u32,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let todos = Arc::new(Mutex::new(Todos::default()));

    let add = {
        let todos = Arc::clone(&todos);
        define_tool!(
            /// Adds a to-do and returns its id.
            #[tool(name = "add_todo", compensate = {
                let todos = Arc::clone(&todos);
                // Rolls the addition back: gets the arguments (as one value) and the id the tool
                // returned.
                move |_args, id: u32| {
                    todos.lock().map(|mut t| t.items.remove(&id)).map(|_| ()).map_err(|_| "lock poisoned")
                }
            })]
            move |
                /// What to do.
                title: String,
                /// 1 (urgent) to 5 (someday).
                #[arg(default = 3)]
                priority: u8,
            | -> Result<u32, String> {
                if !(1..=5).contains(&priority) {
                    return Err(format!("priority {priority} is not between 1 and 5"));
                }
                let mut todos = todos.lock().map_err(|_| "the list is unavailable")?;
                todos.next_id += 1;
                let id = todos.next_id;
                todos.items.insert(id, format!("[p{priority}] {title}"));
                Ok(id)
            }
        )
    };

    let list = {
        let todos = Arc::clone(&todos);
        define_tool!(
            /// Lists the to-dos, slowly, as a remote service would.
            #[tool(name = "list_todos", timeout = "2s")]
            async move |#[context] call: CallId| {
                tokio::time::sleep(Duration::from_millis(10)).await;
                let items: Vec<String> = todos
                    .lock()
                    .map(|t| t.items.values().cloned().collect())
                    .unwrap_or_default();
                println!("  (list_todos answering call {:?})", call.0);
                items
            }
        )
    };

    let clear = define_tool!(
        /// Deletes every to-do.
        #[tool(name = "clear_todos", confirm)]
        move || "cleared"
    );

    println!(
        "clear_todos needs a person's decision: {}",
        clear.needs_confirmation("{}")
    );

    let mut registry = ToolRegistry::new();
    registry.register(add)?;
    registry.register(list)?;
    registry.register(clear)?;

    for definition in registry.definitions() {
        println!("{}: {}", definition.name, definition.parameters);
    }
    for (name, arguments) in [
        (
            "add_todo",
            r#"{"title": "write the report", "priority": 1}"#,
        ),
        ("add_todo", r#"{"title": "water the plants"}"#),
        ("add_todo", r#"{"title": "learn the harp", "priority": 9}"#),
        ("list_todos", "{}"),
    ] {
        match registry.call(name, arguments).await {
            Ok(output) => println!("{name}({arguments}) -> {}", output.content()),
            Err(error) => println!("{name}({arguments}) -> error: {}", error.model_message()),
        }
    }

    // Roll back the second addition, as the loop does when a later step fails.
    let tool = registry.get("add_todo").ok_or("add_todo is registered")?;
    let arguments = r#"{"title": "water the plants"}"#;
    let output = tool_sdk::ToolOutput::json("2".into());
    if let Some(undo) = tool.compensate(arguments, &output, tool_sdk::ToolContext::new()) {
        println!("compensating add_todo #2: {}", undo.await?.content());
    }
    println!(
        "after rollback: {}",
        registry.call("list_todos", "{}").await?.content()
    );
    Ok(())
}
