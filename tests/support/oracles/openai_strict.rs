//! OpenAI Structured Outputs' "Supported schemas", as its documentation states them (function
//! calling with `strict: true` follows them):
//!
//! - types: string, number, boolean, integer, object, array, null; `enum`; `anyOf`;
//! - string `pattern` and `format` (date-time, time, date, duration, email, hostname, ipv4,
//!   ipv6, uuid); number `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`,
//!   `exclusiveMinimum`; array `minItems`, `maxItems`;
//! - the root is an object, not `anyOf`;
//! - every field is required (an optional one as a union with `null`);
//! - `additionalProperties: false` on every object;
//! - up to 5,000 object properties in all, up to 10 levels of nesting;
//! - up to 1,000 enum values in all, and for one enum of more than 250 string values at most
//!   15,000 characters;
//! - at most 120,000 characters of property names, definition names, enum and const values;
//! - definitions in `$defs`, recursion through `$ref`;
//! - not supported: `allOf`, `not`, `if`/`then`/`else`, `dependentRequired`,
//!   `dependentSchemas`, `patternProperties`, `unevaluatedProperties`, `propertyNames`,
//!   `minProperties`, `maxProperties`, `minLength`, `maxLength`, `unevaluatedItems`,
//!   `contains`, `minContains`, `maxContains`, `uniqueItems`, `prefixItems`.

use serde_json::Value;

use super::{at, kinds, resolve, unsupported_keywords, Violation};

const TYPES: &[&str] = &[
    "string", "number", "boolean", "integer", "object", "array", "null",
];
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
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];
/// Keywords a lowering may drop (hints, and bounds the decoder checks anyway) or restate
/// (`oneOf` of variants that never overlap, as `anyOf`) without changing what the tool takes.
const MENDABLE: &[&str] = &[
    "default",
    "examples",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "uniqueItems",
    "$schema",
    "$id",
    "$comment",
    "readOnly",
    "writeOnly",
    "deprecated",
    "contentEncoding",
    "contentMediaType",
    "oneOf",
];
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

/// Every rule `schema` (a function's parameters) breaks.
pub fn violations(schema: &Value) -> Vec<Violation> {
    let mut check = Check {
        root: schema,
        found: Vec::new(),
        properties: 0,
        enum_values: 0,
        text: 0,
        open: Vec::new(),
    };
    if schema.get("type") != Some(&Value::String("object".into())) || schema.get("anyOf").is_some()
    {
        check.broke("", "the root must be an object, not anyOf", false);
    }
    check.node(schema, "", 0);
    if let Some(defs) = schema.get("$defs").and_then(Value::as_object) {
        check.text += defs.keys().map(String::len).sum::<usize>();
    }
    if check.properties > 5_000 {
        check.broke("", "up to 5,000 object properties in all", false);
    }
    if check.enum_values > 1_000 {
        check.broke("", "up to 1,000 enum values in all", false);
    }
    if check.text > 120_000 {
        check.broke("", "at most 120,000 characters of names and values", false);
    }
    check.found
}

struct Check<'a> {
    root: &'a Value,
    found: Vec<Violation>,
    properties: usize,
    enum_values: usize,
    text: usize,
    /// References being followed, to stop at recursion (which is allowed).
    open: Vec<String>,
}

impl Check<'_> {
    fn broke(&mut self, pointer: &str, rule: &str, mendable: bool) {
        self.found.push(Violation {
            pointer: pointer.to_owned(),
            rule: rule.to_owned(),
            mendable,
        });
    }

    fn node(&mut self, schema: &Value, pointer: &str, depth: usize) {
        if depth > 10 {
            self.broke(pointer, "up to 10 levels of nesting", false);
            return;
        }
        let Some(object) = schema.as_object() else {
            self.broke(pointer, "every schema is an object with a type", false);
            return;
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            if object.len() > 1 {
                self.broke(pointer, "a `$ref` stands alone", true);
            }
            let root = self.root;
            match resolve(root, reference) {
                None => self.broke(pointer, "a `$ref` points into the schema", false),
                Some(_) if self.open.iter().any(|open| open == reference) => {}
                Some(target) => {
                    self.open.push(reference.to_owned());
                    self.node(target, pointer, depth);
                    self.open.pop();
                }
            }
            return;
        }
        self.found
            .extend(unsupported_keywords(object, pointer, KEYWORDS, MENDABLE));
        let kinds = kinds(object);
        if kinds.iter().any(|kind| !TYPES.contains(kind)) {
            self.broke(
                pointer,
                "types are string, number, boolean, integer, object, array, null",
                false,
            );
        }
        if kinds.is_empty()
            && !["anyOf", "enum", "const"]
                .iter()
                .any(|k| object.contains_key(*k))
        {
            self.broke(pointer, "every schema has a type", false);
        }
        if let Some(format) = object.get("format").and_then(Value::as_str) {
            if !FORMATS.contains(&format) {
                self.broke(&at(pointer, "format"), "a supported string format", true);
            }
        }
        if let Some(values) = object.get("enum").and_then(Value::as_array) {
            self.enum_values += values.len();
            let strings: usize = values.iter().filter_map(Value::as_str).map(str::len).sum();
            self.text += strings;
            if values.len() > 250 && strings > 15_000 {
                self.broke(
                    pointer,
                    "an enum of more than 250 strings has at most 15,000 characters",
                    false,
                );
            }
        }
        if let Some(Value::String(value)) = object.get("const") {
            self.text += value.len();
        }
        let is_object = kinds.contains(&"object") || object.contains_key("properties");
        if is_object {
            match object.get("additionalProperties") {
                Some(Value::Bool(false)) => {}
                Some(Value::Object(_)) | Some(Value::Bool(true)) => self.broke(
                    pointer,
                    "`additionalProperties: false` on every object (no maps)",
                    false,
                ),
                _ => self.broke(
                    pointer,
                    "`additionalProperties: false` on every object",
                    true,
                ),
            }
        }
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            self.properties += properties.len();
            self.text += properties.keys().map(String::len).sum::<usize>();
            let required: Vec<&str> = object
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for (name, property) in properties {
                if !required.contains(&name.as_str()) {
                    self.broke(
                        &at(&at(pointer, "properties"), name),
                        "every field is required",
                        true,
                    );
                }
                self.node(property, &at(&at(pointer, "properties"), name), depth + 1);
            }
        }
        if let Some(items) = object.get("items") {
            self.node(items, &at(pointer, "items"), depth + 1);
        }
        if object.contains_key("prefixItems") {
            self.broke(
                pointer,
                "arrays have one item type (`prefixItems` is not supported)",
                false,
            );
        }
        if let Some(branches) = object.get("anyOf").and_then(Value::as_array) {
            for (i, branch) in branches.iter().enumerate() {
                self.node(branch, &at(&at(pointer, "anyOf"), &i.to_string()), depth);
            }
        }
        if object.contains_key("allOf") {
            self.broke(pointer, "`allOf` is not supported", false);
        }
    }
}
