#![deny(warnings)]

use tool_sdk::tool;

/// Every flag and a timeout.
#[tool(
    name = "everything",
    description = "Every option at once.",
    timeout = "30s",
    return_direct,
    overrides_built_in,
    skip_permission,
    defer
)]
fn all_options() {}

/// Deferred until the model asks.
#[tool(defer = "auto", timeout = "500ms")]
fn deferred_auto() {}

/// Never deferred.
#[tool(defer = "never", timeout = "2m")]
fn deferred_never() {}

/// Always deferred.
#[tool(defer = "always", timeout = "1h")]
fn deferred_always() {}

/// The crate path given explicitly.
#[tool(crate = ::tool_sdk)]
fn explicit_crate() {}

fn main() {}
