//! The one walk that lowers a canonical schema to a dialect. It reads the dialect's
//! [`Rules`] and never asks which dialect it lowers to, so a shape of Rust type is handled once,
//! for every dialect, and a dialect differs from another only by its data.
//!
//! Errors name the pointer along the walk from the root (`/properties/order/properties/items`),
//! through references, which is where the argument stands in the tool's parameters.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::define::arguments::escape_pointer_token;
use crate::describe::error::Refusal;
use crate::describe::merge;
use crate::describe::nullable::nullable;
use crate::describe::regex;
use crate::describe::rule::{Reference, Rule};
use crate::describe::rules::{Maps, Others, Patterns, Refs, Rules, Tuples, TypeUnions};
use crate::describe::Fault;

/// Most schemas one lowering visits. Inlining references can multiply a schema (a definition
/// used twice by one used twice, ...): a hostile one (an MCP server's, say) could otherwise
/// take exponential time and memory.
const MAX_VISITS: usize = 100_000;

/// Lowers `root` (an object schema) by `rules`.
pub(crate) fn lower(rules: &'static Rules, root: &Value) -> Result<Value, Refusal> {
    let mut walk = Walk {
        rules,
        root,
        open: Vec::new(),
        defs: Map::new(),
        heights: HashMap::new(),
        deepest: 0,
        properties: 0,
        enum_values: 0,
        visits: 0,
    };
    let mut lowered = walk.node(root, "", 0, true)?;
    if let (Value::Object(object), false) = (&mut lowered, walk.defs.is_empty()) {
        object.insert(
            "$defs".into(),
            Value::Object(std::mem::take(&mut walk.defs)),
        );
    }
    Ok(lowered)
}

struct Walk<'a> {
    rules: &'static Rules,
    root: &'a Value,
    /// The references being lowered, innermost last, and whether each is being lowered as a
    /// definition of `$defs` (or inlined): meeting one again is recursion.
    open: Vec<(String, bool)>,
    /// Lowered definitions, by name, for the output's `$defs`.
    defs: Map<String, Value>,
    /// How many levels each lowered definition nests below where it is used.
    heights: HashMap<String, usize>,
    /// The deepest nesting reached.
    deepest: usize,
    /// Properties and enumeration values counted so far, for the limits.
    properties: usize,
    enum_values: usize,
    /// Schemas visited so far, against [`MAX_VISITS`].
    visits: usize,
}

fn at(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", escape_pointer_token(key))
}

fn unsupported(pointer: &str, rule: Rule<'_>) -> Refusal {
    (Fault::Unsupported, pointer.to_owned(), rule.into())
}

fn invalid(pointer: &str, rule: Rule<'_>) -> Refusal {
    (Fault::Invalid, pointer.to_owned(), rule.into())
}

fn too_large(pointer: &str, rule: Rule<'_>) -> Refusal {
    (Fault::TooLarge, pointer.to_owned(), rule.into())
}

/// Refused as too large when `count` of `what` passed `max`.
fn within(count: usize, max: Option<usize>, here: &str, what: &'static str) -> Result<(), Refusal> {
    match max {
        Some(max) if count > max => Err(too_large(here, Rule::MoreThan { max, what })),
        _ => Ok(()),
    }
}

/// The name of a definition `reference` points to in `$defs`, when it is that simple.
fn def_name(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/$defs/")
        .filter(|name| !name.contains('/') && !name.contains('~'))
}

impl<'a> Walk<'a> {
    /// The schema a local `reference` points to.
    fn target(&self, reference: &str, pointer: &str) -> Result<&'a Value, Refusal> {
        reference
            .strip_prefix('#')
            .and_then(|path| self.root.pointer(path))
            .ok_or_else(|| {
                invalid(
                    pointer,
                    Rule::Unresolved {
                        reference: Reference::Text(reference),
                    },
                )
            })
    }
}

impl Walk<'_> {
    fn node(
        &mut self,
        schema: &Value,
        pointer: &str,
        depth: usize,
        is_root: bool,
    ) -> Result<Value, Refusal> {
        if let Some(max) = self.rules.limits.max_depth {
            if depth > max {
                return Err(too_large(pointer, Rule::Deeper { max }));
            }
        }
        self.deepest = self.deepest.max(depth);
        self.visits += 1;
        if self.visits > MAX_VISITS {
            return Err(too_large(pointer, Rule::Expands { max: MAX_VISITS }));
        }
        let Some(object) = schema.as_object() else {
            if self.rules.canonical {
                return Ok(schema.clone());
            }
            // `true`, any value, is the empty schema where a schema needs no type.
            if schema == &Value::Bool(true) && !self.rules.type_required {
                return Ok(Value::Object(Map::new()));
            }
            return Err(unsupported(pointer, Rule::BooleanSchema));
        };
        if let Some(Value::String(reference)) = object.get("$ref") {
            return self.reference(object, reference, pointer, depth);
        }
        if let Some(merged) = self.single_all_of(object, pointer)? {
            return self.node(&Value::Object(merged), pointer, depth, is_root);
        }
        if !self.rules.canonical && self.composes(object) {
            if let Some(merged) = merge::merged(self.root, object, pointer)? {
                return self.node(&Value::Object(merged), pointer, depth, is_root);
            }
        }
        self.object(object, pointer, depth, is_root)
    }

    /// A schema that is not a reference, keyword by keyword.
    fn object(
        &mut self,
        object: &Map<String, Value>,
        pointer: &str,
        depth: usize,
        is_root: bool,
    ) -> Result<Value, Refusal> {
        let rules = self.rules;
        let mut out = Map::new();
        let mut described: Vec<(String, Value)> = Vec::new();
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (key, value) in object {
            let here = at(pointer, key);
            match key.as_str() {
                "properties" => {
                    let Some(properties) = value.as_object() else {
                        return Err(invalid(&here, Rule::PropertiesNotObject));
                    };
                    self.count_properties(properties.len(), &here)?;
                    let mut lowered = Map::new();
                    for (name, property) in properties {
                        let mut child = self.node(property, &at(&here, name), depth + 1, false)?;
                        if rules.all_required && !required.contains(&name.as_str()) {
                            child = nullable(child);
                        }
                        lowered.insert(name.clone(), child);
                    }
                    out.insert(key.clone(), Value::Object(lowered));
                }
                "items" => match value {
                    Value::Object(_) => {
                        out.insert(key.clone(), self.node(value, &here, depth + 1, false)?);
                    }
                    // `items: false` closes a tuple, which `prefixItems` says.
                    Value::Bool(false) if object.contains_key("prefixItems") => {
                        if rules.canonical {
                            out.insert(key.clone(), value.clone());
                        }
                    }
                    _ if rules.canonical => {
                        out.insert(key.clone(), value.clone());
                    }
                    _ => return Err(unsupported(&here, Rule::ItemsOfAnyType)),
                },
                "prefixItems" => {
                    let lowered = self.tuple(value, pointer, &here, depth)?;
                    out.insert(lowered.0, lowered.1);
                }
                "additionalProperties" => match value {
                    Value::Bool(false) => {
                        if rules.closed_marker {
                            out.insert(key.clone(), value.clone());
                        }
                    }
                    _ => {
                        if let Maps::Refused { because } = rules.maps {
                            return Err(unsupported(pointer, Rule::Map { because }));
                        }
                        match value {
                            Value::Object(_) => {
                                out.insert(key.clone(), self.node(value, &here, depth + 1, false)?);
                            }
                            _ => {
                                out.insert(key.clone(), value.clone());
                            }
                        }
                    }
                },
                // Keys that must match a pattern (integer keys): where the dialect cannot say
                // the pattern, the map cannot be said (dropping the keyword would leave an
                // object that takes no key at all).
                "patternProperties"
                    if !self.keeps(key) && value.as_object().is_some_and(|p| !p.is_empty()) =>
                {
                    return Err(unsupported(
                        pointer,
                        match rules.maps {
                            Maps::Refused { because } => Rule::Map { because },
                            Maps::Kept => Rule::KeyPattern,
                        },
                    ));
                }
                "anyOf" | "oneOf" => {
                    let Some(branches) = value.as_array() else {
                        return Err(invalid(&here, Rule::NotArray { keyword: key }));
                    };
                    if is_root && !rules.canonical {
                        return Err(unsupported("", Rule::RootUnion));
                    }
                    let mut lowered = Vec::with_capacity(branches.len());
                    for (i, branch) in branches.iter().enumerate() {
                        lowered.push(self.node(
                            branch,
                            &at(&here, &i.to_string()),
                            depth,
                            false,
                        )?);
                    }
                    let name = if rules.one_of_as_any_of { "anyOf" } else { key };
                    if out.insert(name.into(), Value::Array(lowered)).is_some() {
                        return Err(unsupported(&here, Rule::AnyOfBesideOneOf));
                    }
                }
                "allOf" => {
                    // One schema, or objects, were merged before; others stay where the
                    // dialect says `allOf`.
                    let Some(schemas) = value.as_array() else {
                        return Err(invalid(&here, Rule::NotArray { keyword: "allOf" }));
                    };
                    if !rules.all_of {
                        return Err(unsupported(&here, Rule::AllOf));
                    }
                    let mut lowered = Vec::with_capacity(schemas.len());
                    for (i, schema) in schemas.iter().enumerate() {
                        lowered.push(self.all_of_schema(
                            schema,
                            &at(&here, &i.to_string()),
                            depth,
                        )?);
                    }
                    let kept = if rules.canonical {
                        value.clone()
                    } else {
                        Value::Array(lowered)
                    };
                    out.insert(key.clone(), kept);
                }
                "pattern"
                    if rules.patterns == Patterns::Plain
                        && value
                            .as_str()
                            .is_none_or(|pattern| regex::beyond_plain(pattern).is_some()) =>
                {
                    self.other(key, value, &mut out, &mut described);
                }
                // Definitions are lowered where they are used, and only those.
                "$defs" | "definitions" if !rules.canonical => {}
                "type" => self.kind(value, &here, &mut out)?,
                "const" if rules.const_as_enum => {
                    if rules.string_enums && !value.is_string() {
                        return Err(unsupported(&here, Rule::StringEnumsOnly));
                    }
                    self.count_enum_values(1, &here)?;
                    out.insert("enum".into(), Value::Array(vec![value.clone()]));
                }
                "enum" => {
                    let Some(values) = value.as_array() else {
                        return Err(invalid(&here, Rule::NotArray { keyword: "enum" }));
                    };
                    if rules.string_enums && !values.iter().all(Value::is_string) {
                        return Err(unsupported(&here, Rule::StringEnumsOnly));
                    }
                    self.count_enum_values(values.len(), &here)?;
                    self.keyword(key, value, &mut out, &mut described);
                }
                "format" => {
                    // A format is a hint: one the dialect would refuse is dropped.
                    let known = rules.formats.is_none_or(|formats| {
                        value
                            .as_str()
                            .is_some_and(|format| formats.contains(&format))
                    });
                    if known {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "required" if rules.all_required => {}
                "minItems"
                    if rules
                        .max_min_items
                        .is_some_and(|max| value.as_u64().is_none_or(|n| n > max)) =>
                {
                    self.other(key, value, &mut out, &mut described);
                }
                _ => self.keyword(key, value, &mut out, &mut described),
            }
        }
        self.finish(&mut out, described, pointer)?;
        Ok(Value::Object(out))
    }

    /// What every schema gets once its keywords are lowered: bounds told in the description,
    /// objects closed, every property required, and a type.
    fn finish(
        &self,
        out: &mut Map<String, Value>,
        described: Vec<(String, Value)>,
        pointer: &str,
    ) -> Result<(), Refusal> {
        let rules = self.rules;
        if !described.is_empty() {
            let told: Vec<String> = described
                .iter()
                .map(|(key, value)| format!("{key}: {value}"))
                .collect();
            let told = format!("{{{}}}", told.join(", "));
            let description = match out.get("description").and_then(Value::as_str) {
                Some(description) => format!("{description}\n\n{told}"),
                None => told,
            };
            out.insert("description".into(), Value::String(description));
        }
        let is_object = out.get("type").is_some_and(|kind| {
            kind == "object"
                || kind
                    .as_array()
                    .is_some_and(|kinds| kinds.contains(&"object".into()))
        }) || out.contains_key("properties");
        if is_object && rules.closed_objects {
            out.entry("additionalProperties")
                .or_insert(Value::Bool(false));
        }
        if is_object && rules.all_required {
            let names: Vec<Value> = out
                .get("properties")
                .and_then(Value::as_object)
                .map(|properties| properties.keys().cloned().map(Value::String).collect())
                .unwrap_or_default();
            out.insert("required".into(), Value::Array(names));
        }
        if rules.type_required
            && !["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref"]
                .iter()
                .any(|key| out.contains_key(*key))
        {
            return Err(unsupported(pointer, Rule::AnyType));
        }
        Ok(())
    }

    /// A keyword with no structure of its own: kept when the dialect takes it.
    /// Whether the dialect writes `key` out as it is.
    fn keeps(&self, key: &str) -> bool {
        self.rules.others == Others::Kept
            || self
                .rules
                .keywords
                .is_none_or(|keywords| keywords.contains(&key))
    }

    fn keyword(
        &self,
        key: &str,
        value: &Value,
        out: &mut Map<String, Value>,
        described: &mut Vec<(String, Value)>,
    ) {
        match self.rules.keywords {
            Some(keywords) if !keywords.contains(&key) => self.other(key, value, out, described),
            _ => {
                out.insert(key.to_owned(), value.clone());
            }
        }
    }

    /// A keyword the dialect does not take.
    fn other(
        &self,
        key: &str,
        value: &Value,
        out: &mut Map<String, Value>,
        described: &mut Vec<(String, Value)>,
    ) {
        match self.rules.others {
            Others::Kept => {
                out.insert(key.to_owned(), value.clone());
            }
            Others::Dropped => {}
            // What is only a name for the schema, or a value it suggests, tells the model
            // nothing a bound would.
            Others::Described if matches!(key, "$schema" | "$id" | "$comment") => {}
            Others::Described => described.push((key.to_owned(), value.clone())),
        }
    }

    /// `type`, said as the dialect says a union of types.
    fn kind(&self, value: &Value, here: &str, out: &mut Map<String, Value>) -> Result<(), Refusal> {
        match (self.rules.type_unions, value) {
            (TypeUnions::Nullable, Value::Array(kinds)) => {
                let typed: Vec<&Value> = kinds.iter().filter(|kind| *kind != "null").collect();
                let [single] = typed[..] else {
                    return Err(unsupported(here, Rule::UnionOfTypes));
                };
                out.insert("type".into(), single.clone());
                if typed.len() < kinds.len() {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
            _ => {
                out.insert("type".into(), value.clone());
            }
        }
        Ok(())
    }

    /// A tuple (`prefixItems`): kept where the dialect says tuples; elsewhere arrays have one
    /// item type, so a tuple of one type becomes `items` (its length is in `minItems` and
    /// `maxItems`), and one of different types cannot be said.
    fn tuple(
        &mut self,
        value: &Value,
        pointer: &str,
        here: &str,
        depth: usize,
    ) -> Result<(String, Value), Refusal> {
        let Some(elements) = value.as_array() else {
            return Err(invalid(
                here,
                Rule::NotArray {
                    keyword: "prefixItems",
                },
            ));
        };
        let mut lowered = Vec::with_capacity(elements.len());
        for (i, element) in elements.iter().enumerate() {
            lowered.push(self.node(element, &at(here, &i.to_string()), depth + 1, false)?);
        }
        if self.rules.tuples == Tuples::Kept {
            return Ok(("prefixItems".into(), Value::Array(lowered)));
        }
        match lowered.split_first() {
            Some((first, rest)) if rest.iter().all(|other| other == first) => {
                Ok(("items".into(), first.clone()))
            }
            _ => Err(unsupported(pointer, Rule::TupleOfTypes)),
        }
    }

    /// A schema with a `$ref`: the reference stays when the dialect keeps references and it
    /// stands alone (its definition lowered once, into `$defs`); otherwise its target is
    /// inlined, merged with the keywords beside it (a documented field's description).
    fn reference(
        &mut self,
        object: &Map<String, Value>,
        reference: &str,
        pointer: &str,
        depth: usize,
    ) -> Result<Value, Refusal> {
        let target = self.target(reference, pointer)?;
        let Refs::Stay { recursion } = self.rules.refs else {
            return self.inline(object, reference, target, pointer, depth);
        };
        let name = def_name(reference);
        let open = self.open.iter().any(|(open, _)| open == reference);
        let defining = self
            .open
            .iter()
            .any(|(open, as_def)| open == reference && *as_def);
        match (name, open) {
            // Recursion: the reference itself stands for the type, defined once.
            (Some(name), true) if recursion => {
                if !defining && !self.defs.contains_key(name) {
                    self.define(name, reference, target, pointer, depth)?;
                }
                Ok(json!({ "$ref": reference }))
            }
            (_, true) => Err(unsupported(
                pointer,
                Rule::Recursive {
                    reference: Reference::Text(reference),
                },
            )),
            (Some(name), false) if object.len() == 1 => {
                match self.heights.get(name).copied() {
                    None => self.define(name, reference, target, pointer, depth)?,
                    Some(height) => {
                        let over = self
                            .rules
                            .limits
                            .max_depth
                            .is_some_and(|max| depth + height > max);
                        if over {
                            // Walked again only to say where the limit is passed.
                            self.open.push((reference.to_owned(), true));
                            let walked = self.node(target, pointer, depth, false);
                            self.open.pop();
                            walked?;
                        }
                        self.deepest = self.deepest.max(depth + height);
                    }
                }
                Ok(json!({ "$ref": reference }))
            }
            _ => self.inline(object, reference, target, pointer, depth),
        }
    }

    /// Lowers the definition `name` (which `reference` points to) into `$defs`.
    fn define(
        &mut self,
        name: &str,
        reference: &str,
        target: &Value,
        pointer: &str,
        depth: usize,
    ) -> Result<(), Refusal> {
        self.open.push((reference.to_owned(), true));
        let before = std::mem::replace(&mut self.deepest, depth);
        let lowered = self.node(target, pointer, depth, false);
        let height = self.deepest.saturating_sub(depth);
        self.deepest = before.max(self.deepest);
        self.open.pop();
        self.heights.insert(name.to_owned(), height);
        self.defs.insert(name.to_owned(), lowered?);
        Ok(())
    }

    /// The target of `reference`, with the keywords beside the reference over it.
    fn inline(
        &mut self,
        object: &Map<String, Value>,
        reference: &str,
        target: &Value,
        pointer: &str,
        depth: usize,
    ) -> Result<Value, Refusal> {
        if self.open.iter().any(|(open, _)| open == reference) {
            return Err(unsupported(
                pointer,
                Rule::RecursiveInlined {
                    reference: Reference::Text(reference),
                },
            ));
        }
        let mut merged = match target {
            Value::Object(target) => target.clone(),
            // `true` or `false`, with keywords beside: lowered as a boolean schema would be.
            other if object.len() == 1 => return self.node(other, pointer, depth, false),
            _ => Map::new(),
        };
        for (key, value) in object {
            if key != "$ref" {
                merged.insert(key.clone(), value.clone());
            }
        }
        self.open.push((reference.to_owned(), false));
        let lowered = self.node(&Value::Object(merged), pointer, depth, false);
        self.open.pop();
        lowered
    }

    /// One schema of an `allOf` that stays: a `$ref` among them is inlined (strict dialects
    /// take no reference there).
    fn all_of_schema(
        &mut self,
        schema: &Value,
        here: &str,
        depth: usize,
    ) -> Result<Value, Refusal> {
        match schema.as_object() {
            Some(object) if !self.rules.canonical => {
                match object.get("$ref").and_then(Value::as_str) {
                    Some(reference) => {
                        let target = self.target(reference, here)?;
                        self.inline(object, reference, target, here, depth)
                    }
                    None => self.node(schema, here, depth, false),
                }
            }
            _ => self.node(schema, here, depth, false),
        }
    }

    /// Whether `object` composes objects that are merged into one union of whole objects:
    /// `allOf` with several schemas, or, where every object is closed, properties beside a
    /// union (a `#[serde(flatten)]` enum).
    fn composes(&self, object: &Map<String, Value>) -> bool {
        let several = object
            .get("allOf")
            .and_then(Value::as_array)
            .is_some_and(|schemas| schemas.len() > 1);
        let beside = object.contains_key("properties")
            && (object.contains_key("anyOf") || object.contains_key("oneOf"));
        several || (self.rules.closed_objects && beside)
    }

    /// A schema whose `allOf` holds one schema, merged into one (the keywords beside it over
    /// it); `None` for any other.
    fn single_all_of(
        &self,
        object: &Map<String, Value>,
        pointer: &str,
    ) -> Result<Option<Map<String, Value>>, Refusal> {
        let Some(all_of) = object.get("allOf") else {
            return Ok(None);
        };
        let Some(schemas) = all_of.as_array() else {
            return Err(invalid(
                &at(pointer, "allOf"),
                Rule::NotArray { keyword: "allOf" },
            ));
        };
        match &schemas[..] {
            [Value::Object(only)] => {
                let mut merged = only.clone();
                for (key, value) in object {
                    if key != "allOf" {
                        merged.insert(key.clone(), value.clone());
                    }
                }
                Ok(Some(merged))
            }
            _ => Ok(None),
        }
    }

    fn count_properties(&mut self, more: usize, here: &str) -> Result<(), Refusal> {
        self.properties += more;
        within(
            self.properties,
            self.rules.limits.max_properties,
            here,
            "properties",
        )
    }

    fn count_enum_values(&mut self, more: usize, here: &str) -> Result<(), Refusal> {
        self.enum_values += more;
        within(
            self.enum_values,
            self.rules.limits.max_enum_values,
            here,
            "enumeration values",
        )
    }
}
