//! Whether a tool's parameters schema, as schemars wrote it, is what its compile-time check
//! judged: the descriptions of its parameters' types, written out.
//!
//! A description is derived from the Rust type and its serde and schemars attributes, as
//! schemars' derive reads them; a `JsonSchema` written by hand says what it likes, and the
//! derive cannot see it. Where the two part, the check judged a schema the model is never sent,
//! and registration refuses the tool rather than trust that verdict.
//!
//! The comparison is of schemas, not of their spelling: a `$ref` is followed on either side
//! (a type referred to on one side may be inline on the other, and its definition named
//! otherwise), what a parameter adds over its type (its description, its default) is not the
//! type's, and the value of a `default` is known only when its function runs. What a
//! description leaves to registration (an argument marked `#[arg(unchecked)]`, an attribute
//! the derive cannot follow) was judged by no one, and is not compared.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::describe::shape::check::Parameter;
use crate::describe::shape::tree::Shape;

/// The first parameter of `described` whose schema in `parameters` (a tool's arguments
/// object) is not its description, by its place, and the JSON pointer, in the parameter's
/// schema, where the two first part; `None` when every described parameter is its schema.
pub(crate) fn departure(parameters: &Value, described: &[Parameter]) -> Option<(usize, String)> {
    let no_defs = Map::new();
    let real_defs = match parameters.get("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => &no_defs,
    };
    let properties = parameters.get("properties").and_then(Value::as_object);
    for (place, (name, shape, _)) in described.iter().enumerate() {
        if !judged(shape, &mut Vec::new()) {
            continue;
        }
        let mut written = shape.to_json_schema();
        let written_defs = match written
            .as_object_mut()
            .and_then(|root| root.remove("$defs"))
        {
            Some(Value::Object(defs)) => defs,
            _ => Map::new(),
        };
        let Some(real) = properties.and_then(|properties| properties.get(*name)) else {
            return Some((place, String::new()));
        };
        let mut sides = Sides {
            written_defs: &written_defs,
            real_defs,
            assumed: HashSet::new(),
        };
        if let Err(pointer) = sides.schema(&written, real, "", true) {
            return Some((place, pointer));
        }
    }
    None
}

/// Whether a check judged all of `shape`: nothing in it is left to registration.
fn judged(shape: &Shape, open: &mut Vec<&'static str>) -> bool {
    match shape {
        Shape::Unchecked => false,
        Shape::List(items) => items.iter().all(|item| judged(item, open)),
        Shape::Schema(keywords) => keywords.iter().all(|(_, value)| judged(value, open)),
        Shape::Names(names) => names.iter().all(|(_, value)| judged(value, open)),
        Shape::Ref(definition) => {
            if open.contains(&definition.name) {
                return true;
            }
            open.push(definition.name);
            judged(&definition.schema, open)
        }
        Shape::Nullable(inner) => judged(inner, open),
        Shape::Annotated(inner, notes) => {
            judged(inner, open) && notes.iter().all(|(_, value)| judged(value, open))
        }
        Shape::Null
        | Shape::Bool(_)
        | Shape::Int(_)
        | Shape::Float(_)
        | Shape::Str(_)
        | Shape::Recursive(_)
        | Shape::Deep(_) => true,
    }
}

/// Keywords whose value is a schema.
const SCHEMA_VALUED: &[&str] = &[
    "items",
    "additionalProperties",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

/// Keywords whose value names schemas.
const NAMED_SCHEMAS: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// What a parameter adds over its type's schema: not the type's to compare.
const PARAMETER_NOTES: &[&str] = &["description", "title", "default", "examples"];

/// The two sides of a comparison: each one's definitions, and the pairs of definitions taken
/// for the same while they are compared (a recursive type meets itself again).
struct Sides<'a> {
    written_defs: &'a Map<String, Value>,
    real_defs: &'a Map<String, Value>,
    assumed: HashSet<(String, String)>,
}

/// Where two schemas part.
type Parted = Result<(), String>;

impl Sides<'_> {
    /// Compares two schemas at `pointer`; `top` for a parameter's own.
    fn schema(&mut self, written: &Value, real: &Value, pointer: &str, top: bool) -> Parted {
        let (written, written_name) = match resolved(written, self.written_defs) {
            Resolved::Schema(schema, name) => (schema, name),
            // A reference past the depth descriptions unfold: nothing to compare it with.
            Resolved::Unknown => return Ok(()),
        };
        let (real, real_name) = match resolved(real, self.real_defs) {
            Resolved::Schema(schema, name) => (schema, name),
            Resolved::Unknown => return Err(pointer.to_owned()),
        };
        if let (Some(written_name), Some(real_name)) = (written_name, real_name) {
            if !self.assumed.insert((written_name, real_name)) {
                return Ok(());
            }
        }
        match (&written, &real) {
            (Value::Object(written), Value::Object(real)) => {
                self.objects(written, real, pointer, top)
            }
            (written, real) if same_value(written, real) => Ok(()),
            _ => Err(pointer.to_owned()),
        }
    }

    fn objects(
        &mut self,
        written: &Map<String, Value>,
        real: &Map<String, Value>,
        pointer: &str,
        top: bool,
    ) -> Parted {
        let compared = |key: &String| {
            // The value of a default is known when its function runs; a definition is
            // compared where it is referred to.
            key != "default" && key != "$defs" && !(top && PARAMETER_NOTES.contains(&key.as_str()))
        };
        if let Some(only_real) = real
            .keys()
            .find(|key| compared(key) && !written.contains_key(*key))
        {
            return Err(format!("{pointer}/{}", escaped(only_real)));
        }
        for key in written.keys().filter(|key| compared(key)) {
            let here = format!("{pointer}/{}", escaped(key));
            let (Some(w), Some(r)) = (written.get(key), real.get(key)) else {
                return Err(here);
            };
            let key = key.as_str();
            if SCHEMA_VALUED.contains(&key) {
                self.schema(w, r, &here, false)?;
            } else if SCHEMA_LISTS.contains(&key) {
                let (Value::Array(w), Value::Array(r)) = (w, r) else {
                    return Err(here);
                };
                if w.len() != r.len() {
                    return Err(here);
                }
                for (i, (w, r)) in w.iter().zip(r).enumerate() {
                    self.schema(w, r, &format!("{here}/{i}"), false)?;
                }
            } else if NAMED_SCHEMAS.contains(&key) {
                let (Value::Object(w), Value::Object(r)) = (w, r) else {
                    return Err(here);
                };
                if let Some(only_real) = r.keys().find(|name| !w.contains_key(*name)) {
                    return Err(format!("{here}/{}", escaped(only_real)));
                }
                for name in w.keys() {
                    let at = format!("{here}/{}", escaped(name));
                    let (Some(w), Some(r)) = (w.get(name), r.get(name)) else {
                        return Err(at);
                    };
                    self.schema(w, r, &at, false)?;
                }
            } else if key == "required" {
                if !same_set(w, r) {
                    return Err(here);
                }
            } else if !same_value(w, r) {
                return Err(here);
            }
        }
        Ok(())
    }
}

/// A schema with its `$ref` followed.
enum Resolved {
    /// The schema (the definition's, with what is beside the reference over it), and the
    /// definition's name when it was one.
    Schema(Value, Option<String>),
    /// A reference to a definition that is not there.
    Unknown,
}

fn resolved(schema: &Value, defs: &Map<String, Value>) -> Resolved {
    let Some(Value::String(reference)) = schema.get("$ref") else {
        return Resolved::Schema(schema.clone(), None);
    };
    let Some(name) = reference.strip_prefix("#/$defs/") else {
        return Resolved::Unknown;
    };
    let Some(target) = defs.get(name) else {
        return Resolved::Unknown;
    };
    let beside = schema
        .as_object()
        .map(|object| object.iter().filter(|(key, _)| *key != "$ref"));
    let merged = match (target, beside) {
        (Value::Object(target), Some(beside)) => {
            let mut merged = target.clone();
            merged.extend(beside.map(|(key, value)| (key.clone(), value.clone())));
            Value::Object(merged)
        }
        (target, _) => target.clone(),
    };
    Resolved::Schema(merged, Some(name.to_owned()))
}

/// Whether two values are the same, numbers by their value.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => {
            a == b || matches!((a.as_f64(), b.as_f64()), (Some(x), Some(y)) if x == y)
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| same_value(a, b)))
        }
        (a, b) => a == b,
    }
}

/// Whether two lists hold the same values, in any order.
fn same_set(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().all(|a| b.iter().any(|b| same_value(a, b)))
        }
        _ => same_value(a, b),
    }
}

/// A key as a JSON pointer's segment.
fn escaped(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::describe::{Definition, Keyword};

    static POINT: Definition = Definition {
        name: "Point",
        schema: Shape::Schema(&[
            (Keyword::Type, Shape::Str("object")),
            (
                Keyword::Properties,
                Shape::Names(&[("x", Shape::Schema(&[(Keyword::Type, Shape::Str("number"))]))]),
            ),
        ]),
    };
    static AT_POINT: Shape = Shape::Schema(&[(Keyword::Ref, Shape::Ref(&POINT))]);

    fn tool(point: Value) -> Value {
        json!({
            "type": "object",
            "properties": {"at": point, "note": {"type": "string"}},
            "$defs": {"Place": {"type": "object", "properties": {"x": {"type": "number"}}}},
        })
    }

    #[test]
    fn a_reference_is_compared_by_what_it_refers_to() {
        let described: &[Parameter] = &[("at", AT_POINT, true)];
        // Named otherwise, with the parameter's description beside it.
        let renamed = tool(json!({"$ref": "#/$defs/Place", "description": "Where."}));
        assert_eq!(departure(&renamed, described), None);
        // Inline.
        let inline = tool(json!({"type": "object", "properties": {"x": {"type": "number"}}}));
        assert_eq!(departure(&inline, described), None);
    }

    #[test]
    fn a_schema_that_is_not_the_description_is_found_where_they_part() {
        let described: &[Parameter] = &[("at", AT_POINT, false)];
        let other = tool(json!({"type": "object", "properties": {"x": {"type": "string"}}}));
        assert_eq!(
            departure(&other, described),
            Some((0, "/properties/x/type".to_owned()))
        );
        let map = tool(json!({"type": "object", "additionalProperties": {"type": "string"}}));
        assert_eq!(
            departure(&map, described),
            Some((0, "/additionalProperties".to_owned()))
        );
    }

    #[test]
    fn what_the_check_left_to_registration_is_not_compared() {
        let described: &[Parameter] = &[("at", Shape::Unchecked, false)];
        assert_eq!(departure(&tool(json!({"type": "string"})), described), None);
    }
}
