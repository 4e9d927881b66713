//! The fingerprint a decision binds to: the tool's name and its arguments in canonical JSON.

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::ToolCall;

/// SHA-256 (hex) of a call's tool name and canonical arguments. Arguments that mean the same
/// (other key order, other whitespace) give the same fingerprint; any other change gives
/// another, so an approval of `delete_file(path="/tmp/a")` cannot run `delete_file(path="/")`.
///
/// # Examples
///
/// ```
/// use tool_sdk::gate::fingerprint;
/// use tool_sdk::ToolCall;
///
/// let a = fingerprint(&ToolCall::new("1", "rm", r#"{"path": "/tmp/a", "force": true}"#));
/// let b = fingerprint(&ToolCall::new("2", "rm", r#"{"force":true,"path":"/tmp/a"}"#));
/// let c = fingerprint(&ToolCall::new("1", "rm", r#"{"path": "/", "force": true}"#));
/// assert_eq!(a, b);
/// assert_ne!(a, c);
/// ```
pub fn fingerprint(call: &ToolCall) -> String {
    let mut hasher = Sha256::new();
    hasher.update((call.name.len() as u64).to_be_bytes());
    hasher.update(call.name.as_bytes());
    hasher.update(canonical_arguments(&call.arguments).as_bytes());
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(64);
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// Arguments in canonical JSON: object keys sorted, no whitespace. Text that is not JSON is kept
/// as it is (such a call fails before it runs, but its fingerprint still tells it apart).
pub fn canonical_arguments(arguments: &str) -> String {
    match serde_json::from_str::<Value>(arguments) {
        Ok(value) => {
            let mut out = String::with_capacity(arguments.len());
            write_canonical(&value, &mut out);
            out
        }
        Err(_) => format!("\u{0}raw:{arguments}"),
    }
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}
