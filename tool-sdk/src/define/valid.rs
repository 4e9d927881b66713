//! Whether a tool's parameters schema is JSON Schema (2020-12) at all: the one check that both
//! building a dynamic tool and lowering to a dialect make, so both refuse the same schemas with
//! the same words.
//!
//! Real function catalogues write their language's type words where JSON Schema has its own
//! (`"type": "String"`, `long`, `HashMap`, `char`); lowering such a schema would hand a provider
//! a `type` it does not know. The error points into the tool's own schema, never into the
//! meta-schema it was checked against.
//!
//! The meta-schema is checked by the `jsonschema` crate, which the `dynamic` feature brings.
//! Without it, the tools of a build are typed ones, whose schemas schemars writes, or hand-made
//! ones: only their type words are checked, the mistake catalogues make, with the same words.

use serde_json::Value;

/// The type words of JSON Schema.
const TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// Where a schema breaks JSON Schema, and how (naming the bad value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaProblem {
    /// JSON pointer into the tool's schema.
    pub(crate) pointer: String,
    /// What is wrong there, with the offending value.
    pub(crate) message: String,
}

/// Checks `schema` against the JSON Schema 2020-12 meta-schema.
#[cfg(feature = "dynamic")]
pub(crate) fn check_json_schema(schema: &Value) -> Result<(), SchemaProblem> {
    let Err(error) = jsonschema::draft202012::meta::validate(schema) else {
        return Ok(());
    };
    let pointer = error.instance_path().to_string();
    // The meta-schema's rule for the `type` keyword failed: say which word is not a type,
    // rather than that an `anyOf` of the meta-schema did not match.
    let is_type_keyword = error
        .schema_path()
        .as_str()
        .ends_with("/properties/type/anyOf");
    let unknown_type = match error.instance().as_ref() {
        Value::String(word) => Some(word.as_str()),
        Value::Array(words) => words
            .iter()
            .filter_map(Value::as_str)
            .find(|word| !TYPES.contains(word)),
        _ => None,
    }
    .filter(|word| is_type_keyword && !TYPES.contains(word));
    let message = match unknown_type {
        Some(word) => not_a_type(word),
        None => error.to_string(),
    };
    Err(SchemaProblem { pointer, message })
}

/// Checks the type words of `schema`: every `type` keyword, at every depth, names JSON Schema
/// types only.
#[cfg(not(feature = "dynamic"))]
pub(crate) fn check_json_schema(schema: &Value) -> Result<(), SchemaProblem> {
    check_type_words(schema, &mut String::new())
}

/// [`check_json_schema`] without a meta-schema: `pointer` is where `schema` sits.
#[cfg(not(feature = "dynamic"))]
fn check_type_words(schema: &Value, pointer: &mut String) -> Result<(), SchemaProblem> {
    let Value::Object(keywords) = schema else {
        return Ok(());
    };
    for (keyword, value) in keywords {
        let start = pointer.len();
        pointer.push('/');
        pointer.push_str(&keyword.replace('~', "~0").replace('/', "~1"));
        if keyword == "type" {
            let words: Vec<&Value> = match value {
                Value::Array(words) => words.iter().collect(),
                word => vec![word],
            };
            for word in words {
                match word.as_str() {
                    Some(word) if TYPES.contains(&word) => {}
                    Some(word) => {
                        return Err(SchemaProblem {
                            pointer: pointer.clone(),
                            message: not_a_type(word),
                        })
                    }
                    None => {
                        return Err(SchemaProblem {
                            pointer: pointer.clone(),
                            message: format!("{word} is not a JSON Schema type"),
                        })
                    }
                }
            }
        } else if is_schema_map(keyword) {
            // Subschemas under names (`properties`): a property named `type` is a name here,
            // never the keyword.
            if let Value::Object(map) = value {
                for (name, subschema) in map {
                    let here = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
                    check_type_words(subschema, pointer)?;
                    pointer.truncate(here);
                }
            }
        } else if is_schema_list(keyword) {
            if let Value::Array(items) = value {
                for (index, item) in items.iter().enumerate() {
                    let here = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                    check_type_words(item, pointer)?;
                    pointer.truncate(here);
                }
            }
        } else if is_schema(keyword) {
            check_type_words(value, pointer)?;
        }
        // Any other keyword holds data (`default`, `const`, `enum`, `examples`): an object
        // there with a `type` key is a value, not a schema.
        pointer.truncate(start);
    }
    Ok(())
}

/// Keywords whose value maps names to subschemas.
#[cfg(not(feature = "dynamic"))]
fn is_schema_map(keyword: &str) -> bool {
    matches!(
        keyword,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
    )
}

/// Keywords whose value is a list of subschemas.
#[cfg(not(feature = "dynamic"))]
fn is_schema_list(keyword: &str) -> bool {
    matches!(keyword, "anyOf" | "oneOf" | "allOf" | "prefixItems")
}

/// Keywords whose value is one subschema.
#[cfg(not(feature = "dynamic"))]
fn is_schema(keyword: &str) -> bool {
    matches!(
        keyword,
        "items"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "contains"
            | "propertyNames"
            | "not"
            | "if"
            | "then"
            | "else"
    )
}

/// The words for a type word JSON Schema does not have.
fn not_a_type(word: &str) -> String {
    format!(
        "{} is not a JSON Schema type (one of {})",
        Value::from(word),
        TYPES.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_type_word_of_another_language_is_named_at_its_keyword() {
        let schema = json!({"type": "object", "properties": {"source": {"type": "String"}}});
        let problem = check_json_schema(&schema).unwrap_err();
        assert_eq!(problem.pointer, "/properties/source/type");
        assert_eq!(
            problem.message,
            "\"String\" is not a JSON Schema type \
             (one of array, boolean, integer, null, number, object, string)"
        );
    }

    #[test]
    #[cfg(feature = "dynamic")]
    fn a_property_named_type_is_not_taken_for_the_keyword() {
        let schema = json!({"type": "object", "properties": {"type": "String"}});
        let problem = check_json_schema(&schema).unwrap_err();
        assert_eq!(problem.pointer, "/properties/type");
        assert!(!problem.message.contains("JSON Schema type"), "{problem:?}");
        assert!(problem.message.contains("\"String\""), "{problem:?}");
    }

    #[test]
    fn type_words_are_checked_at_every_depth_and_only_where_they_are_keywords() {
        let nested = json!({"type": "object", "properties": {"a": {"anyOf": [
            {"type": "string"}, {"type": "array", "items": {"type": ["long", "null"]}}]}}});
        let problem = check_json_schema(&nested).unwrap_err();
        assert_eq!(problem.pointer, "/properties/a/anyOf/1/items/type");
        assert!(problem
            .message
            .starts_with("\"long\" is not a JSON Schema type"));
        let data = json!({"type": "object", "properties": {"type": {"type": "string",
            "default": {"type": "car"}, "enum": [{"type": "van"}]}}});
        assert_eq!(check_json_schema(&data), Ok(()));
    }

    #[test]
    fn json_schema_passes() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": ["string", "null"]}, "b": {"$ref": "#/$defs/B"}},
            "$defs": {"B": {"type": "integer", "format": "uint8"}}});
        assert_eq!(check_json_schema(&schema), Ok(()));
    }
}
