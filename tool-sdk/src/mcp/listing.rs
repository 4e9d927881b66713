//! What listing a server's tools gave: the tools, those renamed to fit the provider rule, and
//! those left out, so that no tool goes missing without the caller being told.

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex};

use rmcp::model::Tool as RmcpTool;

use crate::register::{provider_name, validate_name};

use crate::define::Tool;

/// The result of listing a server's tools ([`McpClient::listing`](super::McpClient::listing)).
///
/// MCP allows tool names the providers do not (`math.multiply`, `has space`, names over 64
/// characters); such a tool is renamed with [`provider_name`](crate::register::provider_name) (after
/// the client's prefix), and its calls still go to the server under its own name. A tool is
/// left out only when its name collides with another's after renaming, or when its schema
/// cannot be used.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct McpToolListing {
    /// The server's tools, as tools of this process, in the server's order.
    pub tools: Vec<Arc<dyn Tool>>,
    /// The tools whose name was changed to fit the provider rule.
    pub renamed: Vec<RenamedTool>,
    /// The tools that could not be used, and why.
    pub left_out: Vec<LeftOutTool>,
}

impl fmt::Debug for McpToolListing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self
            .tools
            .iter()
            .map(|tool| tool.definition().name.as_str())
            .collect();
        f.debug_struct("McpToolListing")
            .field("tools", &names)
            .field("renamed", &self.renamed)
            .field("left_out", &self.left_out)
            .finish()
    }
}

/// A server's tool whose name was changed to fit the provider rule.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenamedTool {
    /// The name the server lists it under (and is called by).
    pub server_name: String,
    /// The name it has here.
    pub name: String,
}

/// A server's tool that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeftOutTool {
    /// The name the server lists it under.
    pub server_name: String,
    /// Why it was left out.
    pub reason: String,
}

/// The names a listing gives the server's tools: `prefix` + the server's name when that fits
/// the provider rule, its [`provider_name`] otherwise. Names that fit as they are are given
/// first, so that a renamed tool never takes the name of one listed under it; a renamed tool
/// that lands on a name already given gets `Err` with the reason.
pub(super) fn names(prefix: &str, tools: &[RmcpTool]) -> Vec<Result<String, String>> {
    let wanted: Vec<String> = tools
        .iter()
        .map(|tool| format!("{prefix}{}", tool.name))
        .collect();
    let mut taken: HashSet<String> = HashSet::with_capacity(tools.len());
    let mut names: Vec<Option<Result<String, String>>> = vec![None; tools.len()];
    for (slot, name) in names.iter_mut().zip(&wanted) {
        if validate_name(name).is_ok() {
            *slot = Some(if taken.insert(name.clone()) {
                Ok(name.clone())
            } else {
                Err(format!("the server lists `{name}` twice"))
            });
        }
    }
    for (slot, name) in names.iter_mut().zip(&wanted) {
        if slot.is_some() {
            continue;
        }
        let mapped = provider_name(name).into_owned();
        *slot = Some(if taken.insert(mapped.clone()) {
            Ok(mapped)
        } else {
            Err(format!(
                "renamed to fit the provider rule, it would be `{mapped}`, a name another of \
                 the server's tools has"
            ))
        });
    }
    names
        .into_iter()
        .map(|name| name.unwrap_or_else(|| Err("no name".to_owned())))
        .collect()
}

/// The names this client has warned about already, so that a server listed every round
/// gets one warning per tool, not one per round.
#[derive(Debug, Default)]
pub(super) struct Warned(Mutex<HashSet<String>>);

impl Warned {
    /// Whether `server_name` is warned about for the first time (and notes it).
    pub(super) fn first_time(&self, server_name: &str) -> bool {
        self.0
            .lock()
            .map_or(true, |mut warned| warned.insert(server_name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn tools(names: &[&str]) -> Vec<RmcpTool> {
        names
            .iter()
            .map(|name| RmcpTool::new(name.to_string(), "", Arc::new(serde_json::Map::new())))
            .collect()
    }

    #[test]
    fn names_outside_the_rule_are_mapped() {
        let long = "x".repeat(70);
        let listed = tools(&["math.multiply", "has space", &long, "plain"]);
        let names = names("", &listed);
        assert_eq!(
            names,
            [
                Ok("math_multiply".to_owned()),
                Ok("has_space".to_owned()),
                Ok("x".repeat(64)),
                Ok("plain".to_owned()),
            ]
        );
    }

    #[test]
    fn the_prefix_comes_before_the_mapping() {
        let names = names("calc.", &tools(&["add"]));
        assert_eq!(names, [Ok("calc_add".to_owned())]);
    }

    #[test]
    fn a_name_that_fits_wins_over_a_mapped_one() {
        let names = names("", &tools(&["math.multiply", "math_multiply"]));
        assert!(names[0]
            .as_ref()
            .is_err_and(|reason| reason.contains("`math_multiply`")));
        assert_eq!(names[1], Ok("math_multiply".to_owned()));
    }

    #[test]
    fn each_name_is_warned_about_once() {
        let warned = Warned::default();
        assert!(warned.first_time("a.b"));
        assert!(!warned.first_time("a.b"));
        assert!(warned.first_time("c d"));
    }
}
