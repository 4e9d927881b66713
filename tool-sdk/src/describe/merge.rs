//! Objects that JSON Schema composes, merged into one union of whole objects: properties beside
//! a union of objects (a `#[serde(flatten)]` enum), and `allOf` of objects and unions of objects
//! (two flattened enums, say). Where every object is closed, the parts would otherwise forbid
//! each other's keys and no value would fit; where `allOf` cannot be said, the union can.

use serde_json::{Map, Value};

use crate::describe::error::Refusal;
use crate::describe::rule::Rule;
use crate::describe::Fault;

/// Most whole objects one merge makes: each flattened enum multiplies them by its variants.
pub(crate) const MAX_COMBINATIONS: usize = 64;

/// Keywords that say how an object is composed, replaced by the merge.
const STRUCTURE: &[&str] = &[
    "properties",
    "required",
    "type",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
];

/// `object` as a union of whole objects (or as one object, when there is one), the keywords
/// that do not compose it kept beside; `None` when a part is not an object schema.
pub(crate) fn merged(
    root: &Value,
    object: &Map<String, Value>,
    pointer: &str,
) -> Result<Option<Map<String, Value>>, Refusal> {
    let Some(whole) = alternatives(root, object, pointer, 0, true)? else {
        return Ok(None);
    };
    let mut out: Map<String, Value> = object
        .iter()
        .filter(|(key, _)| !STRUCTURE.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    match <[Map<String, Value>; 1]>::try_from(whole) {
        Ok([one]) => out.extend(one),
        Err(many) => {
            out.insert(
                "anyOf".into(),
                Value::Array(many.into_iter().map(Value::Object).collect()),
            );
        }
    }
    Ok(Some(out))
}

/// The whole objects `schema` allows: its own properties, with one branch of each union it
/// composes (`anyOf`/`oneOf`, and each schema of `allOf`). At the `top`, its keywords other
/// than properties stay beside the union, and are not copied into each object.
fn alternatives(
    root: &Value,
    schema: &Map<String, Value>,
    pointer: &str,
    depth: usize,
    top: bool,
) -> Result<Option<Vec<Map<String, Value>>>, Refusal> {
    // A cycle of references is no object to merge.
    if depth > 16 {
        return Ok(None);
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return match resolve(root, reference) {
            Some(target) if schema.len() == 1 => {
                alternatives(root, target, pointer, depth + 1, false)
            }
            _ => Ok(None),
        };
    }
    let is_object = schema.get("type") == Some(&Value::String("object".into()))
        || schema.contains_key("properties");
    let union = ["anyOf", "oneOf"]
        .iter()
        .find_map(|key| schema.get(*key))
        .map(|branches| branches.as_array());
    let all_of = schema.get("allOf").map(Value::as_array);
    if !is_object && union.is_none() && all_of.is_none() {
        return Ok(None);
    }
    let own: Map<String, Value> = schema
        .iter()
        .filter(|(key, _)| match key.as_str() {
            "properties" | "required" => true,
            _ if top => false,
            other => !matches!(
                other,
                "anyOf" | "oneOf" | "allOf" | "additionalProperties" | "$defs" | "definitions"
            ),
        })
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let mut whole = vec![own];
    if let Some(union) = union {
        let Some(branches) = union else {
            return Ok(None);
        };
        let mut any = Vec::new();
        for branch in branches {
            let Some(branch) = branch.as_object() else {
                return Ok(None);
            };
            let Some(found) = alternatives(root, branch, pointer, depth + 1, false)? else {
                return Ok(None);
            };
            any.extend(found);
        }
        whole = product(whole, &any, pointer)?;
    }
    if let Some(all_of) = all_of {
        let Some(schemas) = all_of else {
            return Ok(None);
        };
        for part in schemas {
            let Some(part) = part.as_object() else {
                return Ok(None);
            };
            let Some(found) = alternatives(root, part, pointer, depth + 1, false)? else {
                return Ok(None);
            };
            whole = product(whole, &found, pointer)?;
        }
    }
    Ok(Some(whole))
}

/// Every object of `left` merged with every one of `right`.
fn product(
    left: Vec<Map<String, Value>>,
    right: &[Map<String, Value>],
    pointer: &str,
) -> Result<Vec<Map<String, Value>>, Refusal> {
    if left.len().saturating_mul(right.len()) > MAX_COMBINATIONS {
        return Err((
            Fault::TooLarge,
            pointer.to_owned(),
            Rule::Combinations {
                max: MAX_COMBINATIONS,
            }
            .into(),
        ));
    }
    let mut out = Vec::with_capacity(left.len() * right.len());
    for a in &left {
        for b in right {
            out.push(merge(a, b));
        }
    }
    Ok(out)
}

/// One object with the properties of `a` and `b`, both their required ones, both descriptions,
/// and `b`'s other keywords over `a`'s.
fn merge(a: &Map<String, Value>, b: &Map<String, Value>) -> Map<String, Value> {
    let mut out = a.clone();
    out.insert("type".into(), Value::String("object".into()));
    for (key, value) in b {
        match (key.as_str(), out.get_mut(key)) {
            ("properties", Some(Value::Object(properties))) => {
                if let Value::Object(more) = value {
                    properties.extend(more.clone());
                }
            }
            ("required", Some(Value::Array(required))) => {
                for name in value.as_array().into_iter().flatten() {
                    if !required.contains(name) {
                        required.push(name.clone());
                    }
                }
            }
            ("description", Some(Value::String(first))) => {
                if let Value::String(second) = value {
                    *first = format!("{first}\n\n{second}");
                }
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    out
}

/// The schema a local `reference` points to, when it is an object schema.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Map<String, Value>> {
    root.pointer(reference.strip_prefix('#')?)?.as_object()
}
