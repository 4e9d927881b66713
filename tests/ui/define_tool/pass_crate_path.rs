#![deny(warnings)]

use tool_sdk::define_tool;

mod sdk {
    pub use tool_sdk::*;
}

fn main() {
    let rooted = define_tool!(
        /// The crate path given explicitly.
        #[tool(name = "rooted", crate = ::tool_sdk)]
        |n: u32| n + 1
    );
    // Through a re-export, with every kind of generated code: arguments, hooks, async.
    let reexported = define_tool!(
        /// Through a re-export.
        #[tool(
            name = "reexported",
            crate = crate::sdk,
            confirm = |n: &u32| *n > 1,
            compensate = |_args, out: u32| out
        )]
        async |n: u32, #[context] id: sdk::define::CallId| -> Result<u32, String> {
            let _ = id;
            Ok(n + 1)
        }
    );
    let mut registry = sdk::ToolRegistry::new();
    let _ = registry.register(rooted);
    let _ = registry.register(reexported);
}
