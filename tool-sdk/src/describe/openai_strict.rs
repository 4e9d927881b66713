//! OpenAI strict mode: the transformation of the `openai` Python package
//! (`openai.lib._pydantic._ensure_strict_json_schema`), ported exactly, plus what this crate
//! does beyond it, each difference on purpose:
//!
//! 1. A property the schema does not require becomes a union with `null` before it is made
//!    required, so the model can leave it out by saying `null` (the reference makes it required
//!    as it is, forcing a value, and relies on pydantic having made `Optional` fields nullable).
//! 2. `oneOf` becomes `anyOf`, and its branches are made strict too (strict mode accepts only
//!    `anyOf`; schemars writes `oneOf` for enums whose variants never overlap).
//! 3. Keywords strict mode refuses are dropped: unsupported `format`s (schemars' `uint8`,
//!    `double`, ...), `default`, and every keyword outside the supported set.
//! 4. What strict mode refuses and cannot be mended is an error, not a schema the API would
//!    reject: a root that is not an object or is a union, more than 5,000 properties, nesting
//!    deeper than 10 levels, a `$ref` that does not resolve, a boolean schema.

use serde_json::{Map, Value};

use crate::define::arguments::escape_pointer_token;
use crate::describe::LoweringErrorKind;

/// Why the strict lowering refused: the kind of problem, where, and the rule.
type Refusal = (LoweringErrorKind, String, String);

/// Keywords OpenAI strict mode accepts (its Structured Outputs subset of JSON Schema).
const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "description",
    "title",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];
/// String formats strict mode accepts.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
/// Most properties strict mode accepts in one schema.
pub const MAX_PROPERTIES: usize = 5_000;
/// Deepest nesting strict mode accepts.
pub const MAX_DEPTH: usize = 10;

/// The full lowering: differences 1–2, the reference transformation, then differences 3–4.
/// Errors are `(pointer, rule)`.
pub(crate) fn lower(schema: &Value) -> Result<Value, Refusal> {
    if schema.get("type").and_then(Value::as_str) != Some("object")
        || ["anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| schema.get(k).is_some())
    {
        return Err((
            LoweringErrorKind::Unsupported,
            String::new(),
            "the root must be `\"type\": \"object\"`, not a union".into(),
        ));
    }
    let mut schema = schema.clone();
    nullable_optionals_and_any_of(&mut schema, "")?;
    // What the reference refuses (a non-object where a schema must be, a `$ref` leading nowhere)
    // is not a usable schema.
    let mut strict =
        reference(&schema).map_err(|rule| (LoweringErrorKind::Invalid, String::new(), rule))?;
    prune(&mut strict);
    check_limits(&strict, "", 0, &mut 0)?;
    Ok(strict)
}

/// The `openai` package's `_ensure_strict_json_schema`, ported exactly (for the test that
/// compares both, and as the core of [`lower`]).
#[doc(hidden)]
pub fn reference(schema: &Value) -> Result<Value, String> {
    let mut schema = schema.clone();
    // The reference resolves `$ref`s against the root as mutated so far: its `$defs` are made
    // strict first, before any `$ref` is resolved.
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = schema.get_mut(key) {
            for def in defs.values_mut() {
                let root = Value::Null;
                *def = ensure(std::mem::take(def), &root)?;
            }
        }
    }
    let root = schema.clone();
    ensure(schema, &root)
}

fn ensure(mut schema: Value, root: &Value) -> Result<Value, String> {
    let Value::Object(object) = &mut schema else {
        return Err(format!("expected a dictionary, got {schema}"));
    };
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = object.get_mut(key) {
            for def in defs.values_mut() {
                *def = ensure(std::mem::take(def), root)?;
            }
        }
    }
    if object.get("type").is_some_and(|t| t == "object")
        && !object.contains_key("additionalProperties")
    {
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        let names = properties.keys().cloned().map(Value::String).collect();
        for property in properties.values_mut() {
            *property = ensure(std::mem::take(property), root)?;
        }
        object.insert("required".into(), Value::Array(names));
    }
    if let Some(items) = object.get_mut("items") {
        if items.is_object() {
            *items = ensure(std::mem::take(items), root)?;
        }
    }
    if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
        for branch in branches.iter_mut() {
            *branch = ensure(std::mem::take(branch), root)?;
        }
    }
    if let Some(Value::Array(all_of)) = object.get("allOf").cloned() {
        if all_of.len() == 1 {
            let only = ensure(all_of[0].clone(), root)?;
            if let Value::Object(only) = only {
                for (key, value) in only {
                    object.insert(key, value);
                }
            }
            object.remove("allOf");
        } else {
            let strict: Result<Vec<Value>, String> =
                all_of.into_iter().map(|e| ensure(e, root)).collect();
            object.insert("allOf".into(), Value::Array(strict?));
        }
    }
    if object.get("default").is_some_and(Value::is_null) {
        object.remove("default");
    }
    if let Some(Value::String(reference)) = object.get("$ref").cloned() {
        if object.len() > 1 {
            let resolved = reference
                .strip_prefix('#')
                .and_then(|pointer| root.pointer(pointer))
                .and_then(Value::as_object)
                .ok_or_else(|| format!("`$ref: {reference}` does not resolve to a dictionary"))?;
            let mut merged: Map<String, Value> = resolved.clone();
            for (key, value) in std::mem::take(object) {
                merged.insert(key, value);
            }
            merged.remove("$ref");
            return ensure(Value::Object(merged), root);
        }
    }
    Ok(schema)
}

/// Difference 1 and 2, before the reference runs.
fn nullable_optionals_and_any_of(schema: &mut Value, pointer: &str) -> Result<(), Refusal> {
    let Value::Object(object) = schema else {
        return Err((
            LoweringErrorKind::Unsupported,
            pointer.to_owned(),
            "a boolean schema has no strict equivalent".into(),
        ));
    };
    if let Some(one_of) = object.remove("oneOf") {
        object.insert("anyOf".into(), one_of);
    }
    let required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    for (key, value) in object.iter_mut() {
        let here = format!("{pointer}/{}", escape_pointer_token(key));
        match (key.as_str(), value) {
            ("properties" | "$defs" | "definitions", Value::Object(children)) => {
                let is_properties = key == "properties";
                for (name, child) in children.iter_mut() {
                    nullable_optionals_and_any_of(
                        child,
                        &format!("{here}/{}", escape_pointer_token(name)),
                    )?;
                    if is_properties && !required.contains(name) {
                        *child = nullable(std::mem::take(child));
                    }
                }
            }
            ("items" | "additionalProperties", child @ Value::Object(_)) => {
                nullable_optionals_and_any_of(child, &here)?;
            }
            ("anyOf" | "allOf", Value::Array(branches)) => {
                for (i, branch) in branches.iter_mut().enumerate() {
                    nullable_optionals_and_any_of(branch, &format!("{here}/{i}"))?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Difference 3: drop what strict mode refuses.
fn prune(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    object.retain(|key, value| match key.as_str() {
        "format" => value.as_str().is_some_and(|f| FORMATS.contains(&f)),
        "default" => false,
        key => KEYWORDS.contains(&key),
    });
    for (key, value) in object.iter_mut() {
        match (key.as_str(), value) {
            ("properties" | "$defs" | "definitions", Value::Object(children)) => {
                children.values_mut().for_each(prune);
            }
            ("items" | "additionalProperties", child @ Value::Object(_)) => prune(child),
            ("anyOf", Value::Array(branches)) => branches.iter_mut().for_each(prune),
            _ => {}
        }
    }
}

/// Difference 4: the limits strict mode sets.
fn check_limits(
    schema: &Value,
    pointer: &str,
    depth: usize,
    properties: &mut usize,
) -> Result<(), Refusal> {
    if depth > MAX_DEPTH {
        return Err((
            LoweringErrorKind::TooLarge,
            pointer.to_owned(),
            format!("nesting deeper than {MAX_DEPTH} levels"),
        ));
    }
    let Some(object) = schema.as_object() else {
        return Ok(());
    };
    for (key, value) in object {
        let here = format!("{pointer}/{}", escape_pointer_token(key));
        match (key.as_str(), value) {
            ("properties", Value::Object(children)) => {
                *properties += children.len();
                if *properties > MAX_PROPERTIES {
                    return Err((
                        LoweringErrorKind::TooLarge,
                        here,
                        format!("more than {MAX_PROPERTIES} properties"),
                    ));
                }
                for (name, child) in children {
                    check_limits(
                        child,
                        &format!("{here}/{}", escape_pointer_token(name)),
                        depth + 1,
                        properties,
                    )?;
                }
            }
            ("$defs" | "definitions", Value::Object(children)) => {
                for (name, child) in children {
                    check_limits(
                        child,
                        &format!("{here}/{}", escape_pointer_token(name)),
                        depth,
                        properties,
                    )?;
                }
            }
            ("items" | "additionalProperties", child @ Value::Object(_)) => {
                check_limits(child, &here, depth + 1, properties)?;
            }
            ("anyOf", Value::Array(branches)) => {
                for (i, branch) in branches.iter().enumerate() {
                    check_limits(branch, &format!("{here}/{i}"), depth.max(1), properties)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `schema` or `null`: a type array gains `"null"`, anything else becomes `anyOf [schema, null]`.
fn nullable(schema: Value) -> Value {
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
