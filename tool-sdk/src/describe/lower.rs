//! Lowering a tool's canonical schema (JSON Schema 2020-12) to what each provider accepts.

use serde_json::{Map, Value};

use crate::define::arguments::escape_pointer_token;
use crate::describe::{Dialect, LoweringError, LoweringErrorKind};

/// Keywords Gemini's OpenAPI subset accepts.
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "minLength",
    "maxLength",
    "pattern",
    "title",
    "minProperties",
    "maxProperties",
    "propertyOrdering",
    "default",
];
/// Formats Gemini accepts.
const GEMINI_FORMATS: &[&str] = &["enum", "date-time", "int32", "int64", "float", "double"];
/// Bounds Anthropic strict mode refuses.
const BOUNDS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
];

/// Lowers `schema` (a tool's canonical parameters schema) to `dialect`.
///
/// Refused, for every dialect, when the root is not an object schema or when `schema` is not
/// JSON Schema 2020-12 (a type word such as `"String"`): the error names the pointer into
/// `schema` and the bad value.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use tool_sdk::describe::{Dialect, lower};
///
/// let canonical = json!({
///     "type": "object",
///     "properties": { "city": { "type": "string" }, "days": { "type": "integer", "default": 1 } },
///     "required": ["city"]
/// });
/// let strict = lower("forecast", &canonical, Dialect::OpenAiStrict).unwrap();
/// assert_eq!(strict["required"], json!(["city", "days"]));
/// assert_eq!(strict["properties"]["days"]["type"], json!(["integer", "null"]));
/// assert_eq!(strict["additionalProperties"], false);
/// ```
pub fn lower(tool: &str, schema: &Value, dialect: Dialect) -> Result<Value, LoweringError> {
    let fail = |kind: LoweringErrorKind, pointer: &str, rule: String| LoweringError {
        kind,
        tool: tool.to_owned(),
        dialect,
        pointer: pointer.to_owned(),
        rule,
    };
    let Some(root) = schema.as_object() else {
        return Err(fail(
            LoweringErrorKind::Invalid,
            "",
            "the parameters schema must be an object schema".into(),
        ));
    };
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(fail(
            LoweringErrorKind::Unsupported,
            "",
            "the root must have `\"type\": \"object\"` (not a union)".into(),
        ));
    }
    // Not JSON Schema (`"type": "String"`) has no lowering: every dialect refuses it, with the
    // error a dynamic tool gets for it.
    crate::define::check_json_schema(schema).map_err(|problem| {
        fail(
            LoweringErrorKind::Invalid,
            &problem.pointer,
            problem.message,
        )
    })?;
    let mut lowering = Lowering {
        dialect,
        root: schema,
        fail: &fail,
        expanding: Vec::new(),
    };
    match dialect {
        Dialect::OpenAi | Dialect::Anthropic | Dialect::Mcp => Ok(schema.clone()),
        Dialect::OpenAiStrict => super::openai_strict::lower(schema)
            .map_err(|(kind, pointer, rule)| fail(kind, &pointer, rule)),
        Dialect::AnthropicStrict | Dialect::Gemini => lowering.node(schema, "", true),
    }
}

struct Lowering<'a, F> {
    dialect: Dialect,
    root: &'a Value,
    fail: &'a F,
    /// `$ref`s being inlined, to refuse recursive types where refs cannot stay.
    expanding: Vec<String>,
}

impl<F: Fn(LoweringErrorKind, &str, String) -> LoweringError> Lowering<'_, F> {
    fn node(
        &mut self,
        schema: &Value,
        pointer: &str,
        is_root: bool,
    ) -> Result<Value, LoweringError> {
        let Some(object) = schema.as_object() else {
            // `true` / `false` schemas.
            return match self.dialect {
                Dialect::Gemini => Err((self.fail)(
                    LoweringErrorKind::Unsupported,
                    pointer,
                    "a boolean schema has no equivalent here".into(),
                )),
                _ => Ok(schema.clone()),
            };
        };
        let mut out = Map::new();
        // A `$ref` is inlined when refs cannot stay (Gemini), or when it has siblings.
        if let Some(Value::String(reference)) = object.get("$ref") {
            let alone = object.len() == 1;
            if self.dialect == Dialect::Gemini || !alone {
                let target = self.resolve(reference, pointer)?;
                if self.expanding.contains(reference) {
                    return Err((self.fail)(
                        LoweringErrorKind::Unsupported,
                        pointer,
                        format!("the recursive type `{reference}` cannot be inlined"),
                    ));
                }
                self.expanding.push(reference.clone());
                let mut merged = target.as_object().cloned().unwrap_or_default();
                for (key, value) in object {
                    if key != "$ref" {
                        merged.insert(key.clone(), value.clone());
                    }
                }
                let lowered = self.node(&Value::Object(merged), pointer, false);
                self.expanding.pop();
                return lowered;
            }
        }
        for (key, value) in object {
            let here = format!("{pointer}/{}", escape_pointer_token(key));
            match key.as_str() {
                "properties" => {
                    let Some(properties) = value.as_object() else {
                        return Err((self.fail)(
                            LoweringErrorKind::Invalid,
                            &here,
                            "`properties` must be an object".into(),
                        ));
                    };
                    let mut lowered = Map::new();
                    for (name, property) in properties {
                        let at = format!("{here}/{}", escape_pointer_token(name));
                        lowered.insert(name.clone(), self.node(property, &at, false)?);
                    }
                    out.insert(key.clone(), Value::Object(lowered));
                }
                "items" | "additionalProperties" if value.is_object() => {
                    if key == "additionalProperties" && self.dialect == Dialect::Gemini {
                        continue;
                    }
                    out.insert(key.clone(), self.node(value, &here, false)?);
                }
                "anyOf" | "oneOf" | "allOf" => {
                    let Some(branches) = value.as_array() else {
                        return Err((self.fail)(
                            LoweringErrorKind::Invalid,
                            &here,
                            format!("`{key}` must be an array"),
                        ));
                    };
                    if key == "allOf" {
                        if branches.len() != 1
                            || self.dialect == Dialect::Gemini && branches.len() != 1
                        {
                            return Err((self.fail)(
                                LoweringErrorKind::Unsupported,
                                &here,
                                "`allOf` with several schemas has no equivalent here".into(),
                            ));
                        }
                        let only = self.node(&branches[0], &format!("{here}/0"), false)?;
                        if let Value::Object(only) = only {
                            out.extend(only);
                        }
                        continue;
                    }
                    if is_root {
                        return Err((self.fail)(
                            LoweringErrorKind::Unsupported,
                            &here,
                            "the root cannot be a union".into(),
                        ));
                    }
                    let lowered: Result<Vec<Value>, _> = branches
                        .iter()
                        .enumerate()
                        .map(|(i, b)| self.node(b, &format!("{here}/{i}"), false))
                        .collect();
                    // `oneOf` becomes `anyOf`: schemars writes `oneOf` only for enum variants,
                    // which never overlap, and Gemini accepts `anyOf` only.
                    out.insert("anyOf".into(), Value::Array(lowered?));
                }
                "$defs" => {
                    if self.dialect == Dialect::Gemini {
                        continue; // every `$ref` was inlined
                    }
                    let Some(defs) = value.as_object() else {
                        return Err((self.fail)(
                            LoweringErrorKind::Invalid,
                            &here,
                            "`$defs` must be an object".into(),
                        ));
                    };
                    let mut lowered = Map::new();
                    for (name, def) in defs {
                        let at = format!("{here}/{}", escape_pointer_token(name));
                        lowered.insert(name.clone(), self.node(def, &at, false)?);
                    }
                    out.insert(key.clone(), Value::Object(lowered));
                }
                "type" if self.dialect == Dialect::Gemini => match value {
                    Value::Array(types) => {
                        let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                        if non_null.len() != 1 {
                            return Err((self.fail)(
                                LoweringErrorKind::Unsupported,
                                &here,
                                "a union of several types has no equivalent in Gemini's `type`"
                                    .into(),
                            ));
                        }
                        out.insert("type".into(), non_null[0].clone());
                        if non_null.len() < types.len() {
                            out.insert("nullable".into(), Value::Bool(true));
                        }
                    }
                    other => {
                        out.insert("type".into(), other.clone());
                    }
                },
                "const" if self.dialect == Dialect::Gemini => {
                    out.insert("enum".into(), Value::Array(vec![value.clone()]));
                }
                "format" => {
                    let allowed = match self.dialect {
                        Dialect::Gemini => GEMINI_FORMATS,
                        _ => {
                            out.insert(key.clone(), value.clone());
                            continue;
                        }
                    };
                    // Formats such as schemars' `uint8` or `double` are hints, not rules: drop
                    // the ones the provider would refuse.
                    if value.as_str().is_some_and(|f| allowed.contains(&f)) {
                        out.insert(key.clone(), value.clone());
                    }
                }
                key_name => {
                    let kept = match self.dialect {
                        Dialect::Gemini => GEMINI_KEYWORDS.contains(&key_name),
                        Dialect::AnthropicStrict => !BOUNDS.contains(&key_name),
                        _ => true,
                    };
                    if kept {
                        out.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        let is_object = out.get("type").is_some_and(|t| {
            t == "object" || t.as_array().is_some_and(|a| a.contains(&"object".into()))
        });
        if self.dialect == Dialect::AnthropicStrict && is_object {
            out.insert("additionalProperties".into(), Value::Bool(false));
        }
        Ok(Value::Object(out))
    }

    fn resolve(&self, reference: &str, pointer: &str) -> Result<Value, LoweringError> {
        reference
            .strip_prefix('#')
            .and_then(|p| self.root.pointer(p))
            .cloned()
            .ok_or_else(|| {
                (self.fail)(
                    LoweringErrorKind::Invalid,
                    pointer,
                    format!("`$ref` `{reference}` does not resolve inside the schema"),
                )
            })
    }
}
