//! Whether a tool's parameters schema is JSON Schema (2020-12) at all: the one check that both
//! building a dynamic tool and lowering to a dialect make, so both refuse the same schemas with
//! the same words.
//!
//! Real function catalogues write their language's type words where JSON Schema has its own
//! (`"type": "String"`, `long`, `HashMap`, `char`); lowering such a schema would hand a provider
//! a `type` it does not know. The error points into the tool's own schema, never into the
//! meta-schema it was checked against.

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
        Some(word) => format!(
            "{} is not a JSON Schema type (one of {})",
            Value::from(word),
            TYPES.join(", ")
        ),
        None => error.to_string(),
    };
    Err(SchemaProblem { pointer, message })
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
    fn a_property_named_type_is_not_taken_for_the_keyword() {
        let schema = json!({"type": "object", "properties": {"type": "String"}});
        let problem = check_json_schema(&schema).unwrap_err();
        assert_eq!(problem.pointer, "/properties/type");
        assert!(!problem.message.contains("JSON Schema type"), "{problem:?}");
        assert!(problem.message.contains("\"String\""), "{problem:?}");
    }

    #[test]
    fn json_schema_passes() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": ["string", "null"]}, "b": {"$ref": "#/$defs/B"}},
            "$defs": {"B": {"type": "integer", "format": "uint8"}}});
        assert_eq!(check_json_schema(&schema), Ok(()));
    }
}
