//! Lowering a tool's canonical schema (JSON Schema 2020-12) to what each provider accepts.

use serde_json::Value;

use crate::describe::{objects_for_booleans, rules, walk, Dialect, Fault, LoweringError};

/// Lowers `schema` (a tool's canonical parameters schema) to `dialect`.
///
/// Refused, for every dialect, when the root is not an object schema or when `schema` is not
/// JSON Schema 2020-12 (a type word such as `"String"`): the error names the pointer into
/// `schema` and the bad value.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tool_sdk::describe::{Dialect, lower};
///
/// let canonical = json!({
///     "type": "object",
///     "properties": { "city": { "type": "string" }, "days": { "type": "integer", "default": 1 } },
///     "required": ["city"]
/// });
/// let strict = lower("forecast", &canonical, Dialect::OpenAiStrict).unwrap();
/// assert_eq!(strict["required"], json!(["city", "days"]));
/// assert_eq!(strict["properties"]["days"]["type"], json!(["integer", "null"]));
/// assert_eq!(strict["additionalProperties"], false);
/// ```
pub fn lower(tool: &str, schema: &Value, dialect: Dialect) -> Result<Value, LoweringError> {
    let fail = |fault: Fault, pointer: &str, rule: String| {
        fault.error(tool, dialect, pointer.into(), rule)
    };
    let Some(root) = schema.as_object() else {
        return Err(fail(
            Fault::Invalid,
            "",
            "the parameters schema must be an object schema".into(),
        ));
    };
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(fail(
            Fault::Unsupported,
            "",
            "the root must have `\"type\": \"object\"` (not a union)".into(),
        ));
    }
    let rules = rules::of(dialect);
    // The walk lowers, and checks what every dialect needs (each `$ref` resolves); a dialect
    // that takes the canonical schema gets it as it is, but for its boolean subschemas. Its
    // refusals come first, in the words of its rules: those the compile-time check, which
    // follows it, gives too (an `enum` that is no array is refused in one wording, when
    // compiled and when registered).
    let lowered =
        walk::lower(rules, schema).map_err(|(fault, pointer, rule)| fail(fault, &pointer, rule))?;
    // Not JSON Schema (`"type": "String"`) has no lowering: every dialect refuses it, with the
    // error a dynamic tool gets for it.
    crate::define::check_json_schema(schema)
        .map_err(|problem| fail(Fault::Invalid, &problem.pointer, problem.message))?;
    Ok(if rules.canonical {
        let mut canonical = schema.clone();
        objects_for_booleans(&mut canonical);
        canonical
    } else {
        lowered
    })
}
