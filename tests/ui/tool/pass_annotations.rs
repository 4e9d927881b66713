#![deny(warnings)]

use tool_sdk::{tool, Tool};

/// Reads a file.
#[tool(read_only)]
fn read_file(path: String) -> String {
    path
}

/// Deletes a file.
#[tool(destructive)]
fn delete_file(path: String) -> String {
    path
}

/// Appends a line to a log: it changes things but destroys nothing.
#[tool(destructive = false)]
fn append_log(line: String) -> String {
    line
}

/// Says nothing about its effects.
#[tool]
fn unannotated() {}

fn main() {
    let read = ReadFileTool.definition().options.clone();
    assert!(read.read_only);
    assert_eq!(read.destructive, None);
    assert_eq!(DeleteFileTool.definition().options.destructive, Some(true));
    assert!(!DeleteFileTool.definition().options.read_only);
    assert_eq!(AppendLogTool.definition().options.destructive, Some(false));
    let plain = UnannotatedTool.definition().options.clone();
    assert!(!plain.read_only);
    assert_eq!(plain.destructive, None);
}
