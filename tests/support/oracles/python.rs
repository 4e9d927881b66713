//! The providers' own Python packages, run over JSON Lines: the `openai` package's strict
//! transform, and `google-genai`'s `Schema` and `JSONSchema` types. `./scripts/test.sh` installs them in `.venv`
//! and sets `TOOL_SDK_PYTHON`.

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::Value;

fn python() -> String {
    std::env::var("TOOL_SDK_PYTHON").unwrap_or_else(|_| {
        panic!(
            "TOOL_SDK_PYTHON is not set: run ./scripts/test.sh, which installs the `openai` and \
             `google-genai` packages in .venv"
        )
    })
}

/// Runs `tests/python/<script>` with `args` over `schemas`, one JSON line each way.
fn run(script: &str, args: &[&str], schemas: &[Value]) -> Vec<Value> {
    let script = format!("{}/python/{script}", env!("CARGO_MANIFEST_DIR"));
    let mut child = Command::new(python())
        .arg(&script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the python of the virtual environment runs");
    let mut input = String::new();
    for schema in schemas {
        input.push_str(&schema.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().expect("a stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("python ends");
    writer.join().expect("the writer ends").expect("written");
    assert!(output.status.success(), "{script} failed");
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// What `openai.lib._pydantic._ensure_strict_json_schema` makes of each schema (as
/// `to_strict_json_schema` calls it), or `{"error": ...}`.
pub fn openai_strict_transform(schemas: &[Value]) -> Vec<Value> {
    run("ensure_strict.py", &[], schemas)
}

/// For each schema, `None` when `google.genai.types.Schema` (or, with `json_schema`,
/// `types.JSONSchema`) takes it, else pydantic's message.
pub fn gemini_schema_errors(schemas: &[Value], json_schema: bool) -> Vec<Option<String>> {
    let args: &[&str] = if json_schema { &["--json-schema"] } else { &[] };
    run("gemini_schema.py", args, schemas)
        .into_iter()
        .map(|out| out.get("error").and_then(Value::as_str).map(str::to_owned))
        .collect()
}
