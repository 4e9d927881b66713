//! References for the dialects that are not the lowering's code: checkers of each provider's
//! documented schema rules, written from its documentation alone, and the providers' own Python
//! packages (the `openai` strict transform, `google-genai`'s `Schema` type).
//!
//! Each checker walks a schema as the provider reads it and returns every rule it breaks, with
//! the pointer; none shares code or tables with `tool_sdk::describe`.

pub mod anthropic_strict;
pub mod gemini;
pub mod openai_strict;
pub mod python;

use serde_json::Value;

/// A rule a schema breaks, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer into the schema checked.
    pub pointer: String,
    /// The rule, in the documentation's words.
    pub rule: String,
    /// Whether a lowering could mend it without changing what the tool takes (close an
    /// object, require a property, drop a hint or a bound, inline a reference), as opposed to
    /// a shape the provider cannot take at all.
    pub mendable: bool,
}

/// The types a schema object names in `type`, one or several.
pub(crate) fn kinds(object: &serde_json::Map<String, Value>) -> Vec<&str> {
    match object.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A violation for each keyword of `object` outside `keywords`, mendable when it is in
/// `mendable`.
pub(crate) fn unsupported_keywords(
    object: &serde_json::Map<String, Value>,
    pointer: &str,
    keywords: &[&str],
    mendable: &[&str],
) -> Vec<Violation> {
    object
        .keys()
        .filter(|key| !keywords.contains(&key.as_str()))
        .map(|key| Violation {
            pointer: at(pointer, key),
            rule: format!("`{key}` is not supported"),
            mendable: mendable.contains(&key.as_str()),
        })
        .collect()
}

/// `pointer` with `key` appended, escaped as RFC 6901 says.
pub(crate) fn at(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// The schema a local `$ref` points to in `root`.
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

/// The pointer of the first place where `a` and `b` differ (`None` when they are equal), to
/// name where a reference changed what the lowering made.
pub fn first_difference(a: &Value, b: &Value) -> Option<String> {
    fn walk(a: &Value, b: &Value, pointer: &str) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for key in x.keys().chain(y.keys()) {
                    match (x.get(key), y.get(key)) {
                        (Some(p), Some(q)) => {
                            if let Some(found) = walk(p, q, &at(pointer, key)) {
                                return Some(found);
                            }
                        }
                        _ => return Some(at(pointer, key)),
                    }
                }
                None
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| walk(p, q, &at(pointer, &i.to_string()))),
            _ if a == b => None,
            _ => Some(pointer.to_owned()),
        }
    }
    walk(a, b, "")
}
