//! Anthropic's strict tool use (`strict: true`), as its structured outputs documentation
//! states the JSON Schema it takes:
//!
//! - types: object, array, string, integer, number, boolean, null;
//! - `enum` of strings, numbers, booleans or null only, and `const`;
//! - `anyOf`, and `allOf` (not with `$ref`);
//! - `$ref`, `$defs`, `definitions`, local only;
//! - `required`, `additionalProperties` (only `false`, required on every object);
//! - string `format`: date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid;
//!   `pattern`, whose regular expressions may not use backreferences (`\1`), lookahead or
//!   lookbehind (`(?=...)`, `(?!...)`, `(?<=...)`, `(?<!...)`) or word boundaries (`\b`, `\B`);
//! - array `minItems` of 0 or 1 only;
//! - not supported: recursive schemas; numerical constraints (`minimum`, `maximum`,
//!   `multipleOf`, ...); string length constraints; other array constraints (`maxItems`,
//!   `minItems` above 1, ...); `additionalProperties` other than `false`.
//!
//! Every schema needs a type, an enum, a const or a union (the SDK's own transform refuses one
//! without).
//!
//! Source: <https://platform.claude.com/docs/en/build-with-claude/structured-outputs> ("JSON
//! Schema limitations"; an unsupported feature is answered with a 400).

use serde_json::Value;

use super::{at, kinds, resolve, unsupported_keywords, Violation};

const TYPES: &[&str] = &[
    "object", "array", "string", "integer", "number", "boolean", "null",
];
const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "anyOf",
    "allOf",
    "enum",
    "const",
    "description",
    "title",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "default",
];
/// Bounds and hints a lowering may drop or move to the description.
const MENDABLE: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "minProperties",
    "maxProperties",
    "uniqueItems",
    "examples",
    "$schema",
    "$id",
    "$comment",
    "oneOf",
    "readOnly",
    "writeOnly",
    "deprecated",
];
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Every rule `schema` (a tool's `input_schema`) breaks.
pub fn violations(schema: &Value) -> Vec<Violation> {
    let mut check = Check {
        root: schema,
        found: Vec::new(),
        open: Vec::new(),
    };
    if schema.get("type") != Some(&Value::String("object".into())) {
        check.broke("", "the input schema is an object", false);
    }
    check.node(schema, "");
    check.found
}

struct Check<'a> {
    root: &'a Value,
    found: Vec<Violation>,
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

    fn node(&mut self, schema: &Value, pointer: &str) {
        let Some(object) = schema.as_object() else {
            self.broke(pointer, "every schema is an object with a type", false);
            return;
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let root = self.root;
            match resolve(root, reference) {
                None => self.broke(pointer, "a `$ref` is local and resolves", false),
                Some(_) if self.open.iter().any(|open| open == reference) => {
                    self.broke(pointer, "recursive schemas are not supported", false)
                }
                Some(target) => {
                    self.open.push(reference.to_owned());
                    self.node(target, pointer);
                    self.open.pop();
                }
            }
            return;
        }
        self.found
            .extend(unsupported_keywords(object, pointer, KEYWORDS, MENDABLE));
        let kinds = kinds(object);
        if kinds.iter().any(|kind| !TYPES.contains(kind)) {
            self.broke(pointer, "a supported type", false);
        }
        let literal = ["enum", "const", "anyOf", "allOf"]
            .iter()
            .any(|key| object.contains_key(*key));
        if kinds.is_empty() && !literal {
            self.broke(pointer, "every schema has a type", false);
        }
        if let Some(values) = object.get("enum").and_then(Value::as_array) {
            if values.iter().any(|v| v.is_object() || v.is_array()) {
                self.broke(
                    &at(pointer, "enum"),
                    "enum values are strings, numbers, booleans or null",
                    false,
                );
            }
        }
        if let Some(format) = object.get("format").and_then(Value::as_str) {
            if !FORMATS.contains(&format) {
                self.broke(&at(pointer, "format"), "a supported string format", true);
            }
        }
        if let Some(pattern) = object.get("pattern").and_then(Value::as_str) {
            if let Some(feature) = regex_feature(pattern) {
                self.broke(
                    &at(pointer, "pattern"),
                    &format!("a `pattern` without {feature}"),
                    true,
                );
            }
        }
        if let Some(min) = object.get("minItems") {
            if min.as_u64().is_none_or(|n| n > 1) {
                self.broke(&at(pointer, "minItems"), "`minItems` is 0 or 1", true);
            }
        }
        if kinds.contains(&"object") || object.contains_key("properties") {
            match object.get("additionalProperties") {
                Some(Value::Bool(false)) => {}
                Some(Value::Object(_)) | Some(Value::Bool(true)) => self.broke(
                    pointer,
                    "`additionalProperties` is `false` (no maps)",
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
            for (name, property) in properties {
                self.node(property, &at(&at(pointer, "properties"), name));
            }
        }
        if let Some(items) = object.get("items") {
            self.node(items, &at(pointer, "items"));
        }
        if object.contains_key("prefixItems") {
            self.broke(
                pointer,
                "arrays have one item type (`prefixItems` is not supported)",
                false,
            );
        }
        for union in ["anyOf", "allOf"] {
            if let Some(branches) = object.get(union).and_then(Value::as_array) {
                for (i, branch) in branches.iter().enumerate() {
                    if union == "allOf" && branch.get("$ref").is_some() {
                        self.broke(pointer, "`allOf` does not hold a `$ref`", true);
                    }
                    self.node(branch, &at(&at(pointer, union), &i.to_string()));
                }
            }
        }
    }
}

/// What of the regular expression features strict mode does not support `pattern` uses:
/// backreferences, lookahead or lookbehind, word boundaries. Read token by token: an escape is
/// two characters, and a character class (`[...]`) holds none of them.
fn regex_feature(pattern: &str) -> Option<&'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let mut class = false;
    while i < chars.len() {
        let next = chars.get(i + 1).copied();
        match (chars[i], next, class) {
            ('\\', Some(d), false) if d.is_ascii_digit() && d != '0' => {
                return Some("backreferences")
            }
            ('\\', Some('k'), false) if chars.get(i + 2) == Some(&'<') => {
                return Some("backreferences")
            }
            ('\\', Some('b' | 'B'), false) => return Some("word boundaries"),
            ('\\', _, _) => i += 1,
            ('[', _, false) => class = true,
            (']', _, true) => class = false,
            ('(', Some('?'), false) => {
                let after: String = chars.iter().skip(i + 2).take(2).collect();
                if after.starts_with('=')
                    || after.starts_with('!')
                    || after == "<="
                    || after == "<!"
                {
                    return Some("lookahead or lookbehind");
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}
