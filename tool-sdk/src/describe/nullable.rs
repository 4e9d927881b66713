//! An optional property where every property must be required: its schema or `null`, so the
//! model leaves it out by saying `null` (decoding reads `null` as left out).

use serde_json::{Map, Value};

/// `schema` or `null`: a type array gains `"null"`, anything else becomes `anyOf [schema, null]`.
pub(crate) fn nullable(schema: Value) -> Value {
    let Value::Object(mut object) = schema else {
        return schema;
    };
    // With `enum` or `const`, `null` must be a branch of its own: adding it to `type` would
    // still fail the enumeration.
    let enumerated = object.contains_key("enum") || object.contains_key("const");
    match object.get("type").cloned() {
        Some(Value::String(single)) if !enumerated => {
            if single != "null" {
                object.insert(
                    "type".into(),
                    Value::Array(vec![single.into(), "null".into()]),
                );
            }
            Value::Object(object)
        }
        Some(Value::Array(mut types)) if !enumerated => {
            if !types.iter().any(|t| t == "null") {
                types.push("null".into());
            }
            object.insert("type".into(), Value::Array(types));
            Value::Object(object)
        }
        _ => {
            if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
                if !branches
                    .iter()
                    .any(|b| b.get("type").is_some_and(|t| t == "null"))
                {
                    branches.push(serde_json::json!({ "type": "null" }));
                }
                return Value::Object(object);
            }
            let description = object.remove("description");
            let mut union = Map::new();
            union.insert(
                "anyOf".into(),
                Value::Array(vec![
                    Value::Object(object),
                    serde_json::json!({ "type": "null" }),
                ]),
            );
            if let Some(description) = description {
                union.insert("description".into(), description);
            }
            Value::Object(union)
        }
    }
}
