//! Boolean schemas said as object schemas. JSON Schema lets a subschema be `true` (any value,
//! what schemars writes for `serde_json::Value`) or `false` (no value), but clients that check
//! listed schemas against their own types take only objects where a schema stands: the
//! TypeScript MCP SDK refuses a whole tool list when one property is `true`. The object forms
//! mean the same: `{}` accepts any value, `{"not": {}}` none.
//!
//! Kept as booleans: the keywords whose `false` closes an object or a tuple
//! (`additionalProperties: false`, `items: false` after `prefixItems`), which every reader
//! takes and the strict dialects require as written.

use serde_json::{Map, Value};

/// Keywords whose value is one subschema, `false` kept as it is.
const CLOSING: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "unevaluatedItems",
    "additionalItems",
];

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];

/// Keywords whose value maps names to subschemas.
const NAMED: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords whose value is a list of subschemas.
const LISTED: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Rewrites every boolean subschema of `schema` (an object schema) as the object schema that
/// means the same, but where `false` closes an object or a tuple.
pub(crate) fn objects_for_booleans(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    for (key, value) in object.iter_mut() {
        let key = key.as_str();
        if CLOSING.contains(&key) {
            // An array of `items` is the tuple of drafts before 2020-12.
            match value {
                Value::Bool(false) => {}
                Value::Array(items) => items.iter_mut().for_each(subschema),
                _ => subschema(value),
            }
        } else if ONE.contains(&key) {
            subschema(value);
        } else if NAMED.contains(&key) {
            if let Value::Object(named) = value {
                named.values_mut().for_each(subschema);
            }
        } else if LISTED.contains(&key) {
            if let Value::Array(listed) = value {
                listed.iter_mut().for_each(subschema);
            }
        }
    }
}

/// One subschema: a boolean said as an object, an object rewritten inside.
fn subschema(schema: &mut Value) {
    match schema {
        Value::Bool(true) => *schema = Value::Object(Map::new()),
        Value::Bool(false) => {
            *schema = Value::Object(Map::from_iter([(
                "not".to_owned(),
                Value::Object(Map::new()),
            )]));
        }
        _ => objects_for_booleans(schema),
    }
}

#[cfg(test)]
mod tests {
    use super::objects_for_booleans;
    use serde_json::json;

    #[test]
    fn booleans_become_objects_where_a_schema_stands_and_closing_ones_stay() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "any": true,
                "none": false,
                "list": {"type": "array", "items": true},
                "pair": {"type": "array", "prefixItems": [true, {"type": "string"}], "items": false},
                "map": {"type": "object", "additionalProperties": {"anyOf": [true, {"not": true}]}},
                "const_true": {"const": true, "default": false}
            },
            "additionalProperties": false,
            "$defs": {"Any": true}
        });
        objects_for_booleans(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "any": {},
                    "none": {"not": {}},
                    "list": {"type": "array", "items": {}},
                    "pair": {"type": "array", "prefixItems": [{}, {"type": "string"}], "items": false},
                    "map": {"type": "object", "additionalProperties": {"anyOf": [{}, {"not": {}}]}},
                    "const_true": {"const": true, "default": false}
                },
                "additionalProperties": false,
                "$defs": {"Any": {}}
            })
        );
    }
}
