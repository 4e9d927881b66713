#![deny(warnings)]

use tool_sdk::{define_tool, ToolRegistry};

fn main() {
    // Every key but the hooks at once, `description` instead of a doc comment.
    let everything = define_tool!(
        #[tool(
            name = "everything",
            description = "Every option at once.",
            timeout = "30s",
            return_direct,
            overrides_built_in,
            skip_permission,
            defer,
            confirm
        )]
        || {}
    );
    let auto = define_tool!(
        /// Deferred until the model asks.
        #[tool(name = "deferred_auto", defer = "auto", timeout = "500ms")]
        || {}
    );
    let never = define_tool!(
        /// Never deferred.
        #[tool(name = "deferred_never", defer = "never", timeout = "2m")]
        || {}
    );
    let always = define_tool!(
        /// Always deferred.
        #[tool(name = "deferred_always", defer = "always", timeout = "1h")]
        || {}
    );
    // A trailing comma after the closure.
    let trailing = define_tool!(
        /// Ends with a comma.
        #[tool(name = "trailing")]
        || {},
    );
    let mut registry = ToolRegistry::new();
    let _ = registry.register(everything);
    let _ = registry.register(auto);
    let _ = registry.register(never);
    let _ = registry.register(always);
    let _ = registry.register(trailing);
}
