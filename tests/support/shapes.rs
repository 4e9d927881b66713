//! A property-generated family of argument types: random shapes of Rust types (structs with
//! documented, optional and defaulted fields, options, vectors, maps, tuples, unit and tagged
//! enums, references to named structs) rendered as schemars renders them for a `#[tool]`, each
//! with a value of the type, as serde writes it.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// The fields of a struct or a struct variant: name, shape, and whether it is documented.
pub type Fields = Vec<(String, Shape, bool)>;

/// The shape of a Rust type.
#[derive(Debug, Clone)]
pub enum Shape {
    /// `bool`.
    Bool,
    /// `u8`: an integer with bounds.
    Byte,
    /// `i64`.
    Int,
    /// `f64`.
    Float,
    /// `String`.
    Text,
    /// `Option<T>`.
    Option(Box<Shape>),
    /// `Vec<T>`.
    Vec(Box<Shape>),
    /// `HashMap<String, T>`.
    Map(Box<Shape>),
    /// A tuple of two or three elements.
    Tuple(Vec<Shape>),
    /// A named struct (in `$defs`), its fields: name, shape, documented.
    Struct(String, Fields),
    /// An enum of unit variants, as strings.
    Words(Vec<String>),
    /// An internally tagged enum (`tag = "kind"`) of struct variants.
    Tagged(String, Vec<(String, Fields)>),
}

fn name() -> impl Strategy<Value = String> {
    "[a-z]{1,6}"
}

fn fields(
    inner: impl Strategy<Value = Shape> + Clone,
) -> impl Strategy<Value = Vec<(String, Shape, bool)>> {
    proptest::collection::btree_map(name(), (inner, any::<bool>()), 1..4).prop_map(|fields| {
        fields
            .into_iter()
            .filter(|(name, _)| name != "kind")
            .map(|(name, (shape, documented))| (name, shape, documented))
            .collect()
    })
}

/// Shapes up to a few levels deep.
pub fn shape() -> impl Strategy<Value = Shape> {
    let leaf = prop_oneof![
        Just(Shape::Bool),
        Just(Shape::Byte),
        Just(Shape::Int),
        Just(Shape::Float),
        Just(Shape::Text),
        proptest::collection::btree_set(name(), 1..4)
            .prop_map(|words| Shape::Words(words.into_iter().collect())),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|s| Shape::Option(Box::new(s))),
            inner.clone().prop_map(|s| Shape::Vec(Box::new(s))),
            inner.clone().prop_map(|s| Shape::Map(Box::new(s))),
            proptest::collection::vec(inner.clone(), 2..4).prop_map(Shape::Tuple),
            ("[A-Z][a-z]{2,6}", fields(inner.clone())).prop_map(|(n, f)| Shape::Struct(n, f)),
            (
                "[A-Z][a-z]{2,6}",
                proptest::collection::btree_map(name(), fields(inner), 1..3)
            )
                .prop_map(|(n, variants)| Shape::Tagged(n, variants.into_iter().collect())),
        ]
    })
}

/// The parameters schema of a tool whose one parameter `value` has `shape`, as schemars writes
/// it, and a value of it.
pub fn tool_schema(shape: &Shape) -> (Value, Value) {
    let mut defs = Map::new();
    let value = render(shape, &mut defs);
    let mut schema = json!({
        "type": "object",
        "properties": { "value": value },
        "required": ["value"],
        "additionalProperties": false,
    });
    if !defs.is_empty() {
        schema["$defs"] = Value::Object(defs);
    }
    (schema, json!({ "value": sample(shape) }))
}

fn struct_schema(fields: &[(String, Shape, bool)], defs: &mut Map<String, Value>) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, shape, documented) in fields {
        let mut property = render(shape, defs);
        if *documented {
            match &mut property {
                Value::Object(object) => {
                    object.insert("description".into(), json!(format!("The {name}.")));
                }
                _ => property = json!({ "description": format!("The {name}.") }),
            }
        }
        if !matches!(shape, Shape::Option(_)) {
            required.push(json!(name));
        }
        properties.insert(name.clone(), property);
    }
    json!({ "type": "object", "properties": properties, "required": required })
}

fn render(shape: &Shape, defs: &mut Map<String, Value>) -> Value {
    match shape {
        Shape::Bool => json!({ "type": "boolean" }),
        Shape::Byte => {
            json!({ "type": "integer", "format": "uint8", "minimum": 0, "maximum": 255 })
        }
        Shape::Int => json!({ "type": "integer", "format": "int64" }),
        Shape::Float => json!({ "type": "number", "format": "double" }),
        Shape::Text => json!({ "type": "string" }),
        Shape::Option(inner) => {
            let inner = render(inner, defs);
            match inner.get("type").and_then(Value::as_str) {
                Some(kind) if inner.get("enum").is_none() => {
                    let mut nullable = inner.clone();
                    nullable["type"] = json!([kind, "null"]);
                    nullable
                }
                _ => json!({ "anyOf": [inner, { "type": "null" }] }),
            }
        }
        Shape::Vec(inner) => json!({ "type": "array", "items": render(inner, defs) }),
        Shape::Map(inner) => {
            json!({ "type": "object", "additionalProperties": render(inner, defs) })
        }
        Shape::Tuple(elements) => {
            let items: Vec<Value> = elements.iter().map(|e| render(e, defs)).collect();
            json!({
                "type": "array",
                "prefixItems": items,
                "minItems": elements.len(),
                "maxItems": elements.len(),
            })
        }
        Shape::Struct(name, fields) => {
            let schema = struct_schema(fields, defs);
            define(defs, name, schema)
        }
        Shape::Words(words) => json!({ "type": "string", "enum": words }),
        Shape::Tagged(name, variants) => {
            let branches: Vec<Value> = variants
                .iter()
                .map(|(variant, fields)| {
                    let mut branch = struct_schema(fields, defs);
                    branch["properties"]["kind"] = json!({ "type": "string", "const": variant });
                    if let Some(required) = branch["required"].as_array_mut() {
                        required.push(json!("kind"));
                    }
                    branch
                })
                .collect();
            define(defs, name, json!({ "oneOf": branches }))
        }
    }
}

/// Puts `schema` in `defs` under `name` (made unique, as schemars does for two types of one
/// name), and returns a reference to it.
fn define(defs: &mut Map<String, Value>, name: &str, schema: Value) -> Value {
    let mut unique = name.to_owned();
    let mut n = 1;
    while defs.contains_key(&unique) {
        n += 1;
        unique = format!("{name}{n}");
    }
    defs.insert(unique.clone(), schema);
    json!({ "$ref": format!("#/$defs/{unique}") })
}

/// A value of `shape`, as serde writes it.
pub fn sample(shape: &Shape) -> Value {
    match shape {
        Shape::Bool => json!(true),
        Shape::Byte => json!(7),
        Shape::Int => json!(-3),
        Shape::Float => json!(1.5),
        Shape::Text => json!("text"),
        Shape::Option(_) => Value::Null,
        Shape::Vec(inner) => json!([sample(inner)]),
        Shape::Map(inner) => json!({ "key": sample(inner) }),
        Shape::Tuple(elements) => Value::Array(elements.iter().map(sample).collect()),
        Shape::Struct(_, fields) => fields_sample(fields),
        Shape::Words(words) => json!(words[0]),
        Shape::Tagged(_, variants) => {
            let (variant, fields) = &variants[0];
            let mut value = fields_sample(fields);
            value["kind"] = json!(variant);
            value
        }
    }
}

fn fields_sample(fields: &[(String, Shape, bool)]) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|(name, shape, _)| (name.clone(), sample(shape)))
            .collect(),
    )
}
