//! A [`Shape`] written out as the JSON Schema it describes, `$defs` and all: what schemars
//! writes for the type, which the tests hold it to.

use serde_json::{Map, Number, Value};

use crate::describe::shape::tree::{Definition, Keyword, Shape};

impl Shape {
    /// The JSON Schema this shape describes, as the root of a schema: every definition a
    /// `$ref` names is written once, in `$defs`.
    ///
    /// # Examples
    ///
    /// ```
    /// use tool_sdk::describe::Described;
    ///
    /// let schema = <Option<Vec<u8>> as Described>::SHAPE.to_json_schema();
    /// assert_eq!(schema["type"], serde_json::json!(["array", "null"]));
    /// assert_eq!(schema["items"]["maximum"], 255);
    /// ```
    pub fn to_json_schema(&self) -> Value {
        let mut defs = Map::new();
        let mut root = write(self, &mut defs, 0);
        if let (Value::Object(object), false) = (&mut root, defs.is_empty()) {
            object.insert("$defs".into(), Value::Object(defs));
        }
        root
    }
}

/// Most schemas written inside one another: a shape built to contain itself ends there, as
/// `null`.
const MAX_NESTING: usize = 256;

fn write(shape: &Shape, defs: &mut Map<String, Value>, nesting: usize) -> Value {
    if nesting > MAX_NESTING {
        return Value::Null;
    }
    let nesting = nesting + 1;
    match shape {
        Shape::Null => Value::Null,
        Shape::Bool(value) => Value::Bool(*value),
        Shape::Int(value) => i64::try_from(*value)
            .map(Number::from)
            .or_else(|_| u64::try_from(*value).map(Number::from))
            .map_or_else(|_| Value::from(*value as f64), Value::Number),
        Shape::Float(value) => Number::from_f64(*value).map_or(Value::Null, Value::Number),
        Shape::Str(text) => Value::String((*text).to_owned()),
        Shape::List(items) => Value::Array(
            items
                .iter()
                .map(|item| write(item, defs, nesting))
                .collect(),
        ),
        Shape::Schema(keywords) => Value::Object(keywords_of(keywords, defs, nesting)),
        Shape::Names(names) => Value::Object(
            names
                .iter()
                .map(|(name, value)| ((*name).to_owned(), write(value, defs, nesting)))
                .collect(),
        ),
        Shape::Ref(definition) => {
            define(definition, defs, nesting);
            reference(definition.name)
        }
        Shape::Recursive(name) | Shape::Deep(name) => reference(name),
        // What it is, only the type's `JsonSchema` says.
        Shape::Unchecked => Value::Bool(true),
        Shape::Nullable(inner) => {
            let mut schema = write(inner, defs, nesting);
            allow_null(&mut schema);
            schema
        }
        Shape::Annotated(inner, notes) => {
            let mut object = match write(inner, defs, nesting) {
                Value::Object(object) => object,
                // schemars makes `true` `{}` (and `false` `{"not": {}}`) to add keywords.
                Value::Bool(false) => Map::from_iter([("not".into(), Value::Object(Map::new()))]),
                _ => Map::new(),
            };
            object.extend(keywords_of(notes, defs, nesting));
            Value::Object(object)
        }
    }
}

fn keywords_of(
    keywords: &[(Keyword, Shape)],
    defs: &mut Map<String, Value>,
    nesting: usize,
) -> Map<String, Value> {
    keywords
        .iter()
        .map(|(keyword, value)| (keyword.name().to_owned(), write(value, defs, nesting)))
        .collect()
}

fn reference(name: &str) -> Value {
    Value::String(format!("#/$defs/{name}"))
}

/// Writes `definition` into `defs`, once.
fn define(definition: &Definition, defs: &mut Map<String, Value>, nesting: usize) {
    if defs.contains_key(definition.name) {
        return;
    }
    // Reserved first, so that a reference back to it inside is not written again.
    defs.insert(definition.name.to_owned(), Value::Null);
    let schema = write(&definition.schema, defs, nesting);
    defs.insert(definition.name.to_owned(), schema);
}

/// `null` allowed, as schemars allows it for `Option<T>`.
fn allow_null(schema: &mut Value) {
    let object = match schema {
        Value::Object(object) => object,
        Value::Bool(true) => return,
        _ => {
            *schema = serde_json::json!({ "type": "null" });
            return;
        }
    };
    let has_null_branch = |branches: &Vec<Value>| {
        branches
            .iter()
            .any(|b| b.get("type") == Some(&Value::from("null")))
    };
    if object.len() == 1
        && object
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(has_null_branch)
    {
        return;
    }
    if ["if", "allOf", "anyOf", "oneOf", "$ref"]
        .iter()
        .any(|key| object.contains_key(*key))
    {
        let inner = std::mem::take(object);
        *schema = serde_json::json!({ "anyOf": [inner, { "type": "null" }] });
        return;
    }
    match object.get_mut("type") {
        Some(Value::Array(kinds)) if !kinds.contains(&Value::from("null")) => {
            kinds.push("null".into());
        }
        Some(Value::String(kind)) if kind != "null" => {
            let kind = std::mem::take(kind);
            object.insert("type".into(), serde_json::json!([kind, "null"]));
        }
        _ => {}
    }
    if let Some(value) = object.remove("const") {
        if !value.is_null() {
            object.insert("enum".into(), Value::Array(vec![value, Value::Null]));
        }
    } else if let Some(Value::Array(values)) = object.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}
