use tool_sdk::tool;

struct Database;

/// Counts the rows.
#[tool]
fn count_rows(#[context] db: Database) -> u64 {
    let _ = db;
    0
}

fn main() {}
