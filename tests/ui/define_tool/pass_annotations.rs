#![deny(warnings)]

use tool_sdk::{define_tool, Tool};

fn main() {
    let read = define_tool!(
        /// Reads a file.
        #[tool(name = "read_file", read_only)]
        |path: String| path
    );
    let delete = define_tool!(
        /// Deletes a file.
        #[tool(name = "delete_file", destructive, confirm)]
        |path: String| path
    );
    let append = define_tool!(
        /// Appends a line to a log.
        #[tool(name = "append_log", destructive = false)]
        |line: String| line
    );
    assert!(read.definition().options.read_only);
    assert_eq!(read.definition().options.destructive, None);
    assert_eq!(delete.definition().options.destructive, Some(true));
    assert_eq!(append.definition().options.destructive, Some(false));
    assert!(!append.definition().options.read_only);
}
