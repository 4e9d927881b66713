//! A tool's output schema and structured results as MCP has them: `outputSchema` and
//! `structuredContent` must be objects, so a tool whose output is another value (a number, a
//! list, an optional) has both wrapped under [`STRUCTURED_RESULT_KEY`].

use serde_json::{json, Map, Value};

use crate::describe::objects_for_booleans;

/// The key a JSON result that is not an object is wrapped under in `structuredContent`, which
/// MCP wants to be an object (the convention of the Python SDK's FastMCP).
pub const STRUCTURED_RESULT_KEY: &str = "result";

/// Whether a served tool's structured results go out as they are or wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wrapping {
    /// The output schema is an object schema: an object goes as it is.
    AsIs,
    /// The output schema is of another value: every value goes wrapped, as the schema says.
    Wrapped,
    /// No output schema: an object goes as it is, any other value wrapped.
    ByValue,
}

impl Wrapping {
    /// `value` as `structuredContent`.
    pub(crate) fn content(self, value: Value) -> Value {
        match (self, value) {
            (Self::AsIs | Self::ByValue, Value::Object(object)) => Value::Object(object),
            (_, other) => json!({ STRUCTURED_RESULT_KEY: other }),
        }
    }
}

/// How the results of a tool with output schema `schema` go out.
pub(crate) fn wrapping(schema: Option<&Value>) -> Wrapping {
    match schema {
        None => Wrapping::ByValue,
        Some(schema) if schema.get("type").and_then(Value::as_str) == Some("object") => {
            Wrapping::AsIs
        }
        Some(_) => Wrapping::Wrapped,
    }
}

/// `schema` as an `outputSchema`, and how results then go: an object schema as it is; any
/// other wrapped as the one required property [`STRUCTURED_RESULT_KEY`], its `$defs` moved to
/// the root that its `$ref`s point at.
pub(crate) fn output_schema(schema: Option<&Value>) -> (Option<Map<String, Value>>, Wrapping) {
    let Some(schema) = schema else {
        return (None, Wrapping::ByValue);
    };
    let (mut listed, wrapping) = match (schema, wrapping(Some(schema))) {
        (Value::Object(_), Wrapping::AsIs) => (schema.clone(), Wrapping::AsIs),
        _ => {
            let mut inner = schema.clone();
            let definitions = inner
                .as_object_mut()
                .and_then(|object| object.remove("$defs"));
            let mut wrapper = Map::new();
            wrapper.insert("type".into(), json!("object"));
            wrapper.insert("properties".into(), json!({ STRUCTURED_RESULT_KEY: inner }));
            wrapper.insert("required".into(), json!([STRUCTURED_RESULT_KEY]));
            if let Some(definitions) = definitions {
                wrapper.insert("$defs".into(), definitions);
            }
            (Value::Object(wrapper), Wrapping::Wrapped)
        }
    };
    // A result of any type (`true`) listed as `{}`, as the parameters are.
    objects_for_booleans(&mut listed);
    match listed {
        Value::Object(listed) => (Some(listed), wrapping),
        _ => (None, Wrapping::ByValue),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_schema_goes_as_it_is_and_another_is_wrapped_with_its_definitions() {
        let object = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        assert_eq!(
            output_schema(Some(&object)),
            (object.as_object().cloned(), Wrapping::AsIs)
        );
        let list = json!({
            "type": "array",
            "items": {"$ref": "#/$defs/Item"},
            "$defs": {"Item": {"type": "string"}},
        });
        let (wrapped, wrapping) = output_schema(Some(&list));
        assert_eq!(wrapping, Wrapping::Wrapped);
        assert_eq!(
            Value::Object(wrapped.unwrap()),
            json!({
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Item"}}},
                "required": ["result"],
                "$defs": {"Item": {"type": "string"}},
            })
        );
        assert_eq!(output_schema(None), (None, Wrapping::ByValue));
    }

    #[test]
    fn a_result_of_any_type_is_listed_as_an_object_schema() {
        let (wrapped, wrapping) = output_schema(Some(&json!(true)));
        assert_eq!(wrapping, Wrapping::Wrapped);
        assert_eq!(
            wrapped.map(Value::Object),
            Some(json!({
                "type": "object",
                "properties": {"result": {}},
                "required": ["result"],
            }))
        );
    }

    #[test]
    fn values_are_wrapped_as_the_schema_says() {
        let object = json!({"a": 1});
        assert_eq!(Wrapping::AsIs.content(object.clone()), object);
        assert_eq!(Wrapping::ByValue.content(object.clone()), object);
        assert_eq!(
            Wrapping::Wrapped.content(object.clone()),
            json!({"result": object})
        );
        assert_eq!(Wrapping::ByValue.content(json!(2)), json!({"result": 2}));
    }
}
