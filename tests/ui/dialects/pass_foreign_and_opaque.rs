#![deny(warnings)]

//! What the check never breaks: foreign types schemars describes, schemars attributes the
//! derive cannot follow (left to registration), and two types that hold each other (checked
//! where a dialect is chosen, as one type that holds itself is).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use tool_sdk::describe::Described;
use tool_sdk::tool;

/// A day.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
#[schemars(extend("x-kind" = "calendar"))]
struct Day {
    /// The date.
    #[schemars(extend("format" = "date"))]
    date: String,
}

/// A folder, which holds files.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct Folder {
    files: Vec<File>,
}

/// A file, which may hold a folder.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, Described)]
struct File {
    unpacked: Option<Box<Folder>>,
}

/// Pings a host.
#[tool(dialects(openai_strict, gemini))]
fn ping(host: IpAddr, via: Option<SocketAddr>, wait: Duration, day: Day) -> String {
    format!("{host} {via:?} {wait:?} {}", day.date)
}

/// Counts files.
#[tool(dialects(openai_strict, anthropic))]
fn count(root: Folder) -> usize {
    root.files.iter().filter(|file| file.unpacked.is_some()).count()
}

fn main() {
    use tool_sdk::Tool;
    assert_eq!(PingTool.definition().name, "ping");
    assert_eq!(CountTool.definition().name, "count");
}
