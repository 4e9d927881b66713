//! The table of the `describe` guide (`tool-sdk/src/describe/dialects.md`): what each dialect
//! does with each type of the corpus. The table is built here from the corpus and compared with
//! the guide's, so the guide cannot drift from the lowering: a difference fails, printing the
//! table to put there (`TOOL_SDK_WRITE_DIALECT_TABLE=1` writes it).

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use tool_sdk::describe::{lower, Dialect};
use tool_sdk_tests::corpus::corpus;

const GUIDE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tool-sdk/src/describe/dialects.md"
);
const BEGIN: &str = "<!-- table: built by tests/tests/describe/table.rs -->";
const END: &str = "<!-- end of table -->";

/// One thing a lowering did to a schema, found by comparing the canonical schema with the
/// lowered one. The table says each in words; [`Change::Unnamed`] is a difference no class
/// covers, which fails the test until it is given a name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Change {
    /// A property the schema lets the model leave out is required, and takes `null`.
    MadeRequired,
    /// `additionalProperties: false` written on an object that did not say it.
    Closed,
    /// `additionalProperties: false` left out (the dialect's default).
    Unclosed,
    /// A `$ref` replaced by its definition.
    Inlined,
    /// An `allOf` of one schema merged into the schema around it.
    SingleAllOf,
    /// Fields beside flattened enums copied into each variant: a union of whole objects.
    Flattened,
    /// `oneOf` said as `anyOf`.
    OneOfAsAnyOf,
    /// A union of a type with `null` said as one type and `nullable: true`.
    Nullable,
    /// `const` said as a one-value `enum`.
    ConstAsEnum,
    /// A tuple (`prefixItems`) of one type said as `items`.
    TupleAsItems,
    /// `true` (any value) said as `{}`.
    TrueAsEmpty,
    /// A keyword told in the description instead.
    Described(String),
    /// A keyword dropped.
    Dropped(String),
    /// A difference no class covers: `added`, `dropped` or `changed`, and the keyword.
    Unnamed(&'static str, String),
}

impl Change {
    /// The words for the change in a cell, and what they mean, for the legend (`None` for the
    /// keyword lists, said as they are).
    fn words(&self) -> (String, Option<&'static str>) {
        let (words, meaning) = match self {
            Change::MadeRequired => (
                "optional fields made required and nullable",
                "every property is required, and one the model may leave out takes `null` \
                 (decoding reads `null` as left out)",
            ),
            Change::Closed => (
                "`additionalProperties: false` added",
                "every object is closed, saying so",
            ),
            Change::Unclosed => (
                "`additionalProperties: false` dropped",
                "a closed object is not said closed, where the dialect has no such keyword",
            ),
            Change::Inlined => (
                "`$ref` inlined",
                "a reference to `$defs` replaced by the definition, merged with the keywords \
                 beside it",
            ),
            Change::SingleAllOf => (
                "one-schema `allOf` merged",
                "an `allOf` of one schema merged into the schema around it",
            ),
            Change::Flattened => (
                "flattened enums as a union of whole objects",
                "fields beside one or more `#[serde(flatten)]` enums copied into each variant \
                 (each combination of variants), which `anyOf` unites",
            ),
            Change::OneOfAsAnyOf => (
                "`oneOf` as `anyOf`",
                "enum variants, which never overlap, said with `anyOf`",
            ),
            Change::Nullable => (
                "`null` as `nullable`",
                "a union of a type with `null` said as the type and `nullable: true` \
                 (OpenAPI 3.0)",
            ),
            Change::ConstAsEnum => (
                "`const` as `enum`",
                "`const` said as an `enum` of one value",
            ),
            Change::TupleAsItems => (
                "tuple as `items`",
                "a tuple of one type (`prefixItems`) said as an array of that type, its \
                 length kept in `minItems` and `maxItems`",
            ),
            Change::TrueAsEmpty => (
                "`true` as `{}`",
                "the schema `true` (any value) said as the empty schema",
            ),
            Change::Described(_) | Change::Dropped(_) | Change::Unnamed(..) => {
                unreachable!("said as a list")
            }
        };
        (words.to_owned(), Some(meaning))
    }
}

/// Compares a canonical schema with its lowering, node by node, through references on both
/// sides, and gathers what changed.
struct Comparison<'a> {
    canonical: &'a Value,
    lowered: &'a Value,
    changes: BTreeSet<Change>,
    /// Pairs of references already compared (recursive types).
    seen: BTreeSet<(String, String)>,
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

fn required(schema: &Map<String, Value>) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn has_null(kind: Option<&Value>) -> bool {
    match kind {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "null"),
        _ => false,
    }
}

fn is_null_branch(schema: &Value) -> bool {
    schema.get("type").is_some_and(|kind| kind == "null")
}

impl<'a> Comparison<'a> {
    fn new(canonical: &'a Value, lowered: &'a Value) -> Self {
        Comparison {
            canonical,
            lowered,
            changes: BTreeSet::new(),
            seen: BTreeSet::new(),
        }
    }

    fn unnamed(&mut self, what: &'static str, key: &str) {
        self.changes.insert(Change::Unnamed(what, key.to_owned()));
    }

    /// The canonical schema `c` as its own `$ref`s and one-schema `allOf`s read, when the
    /// lowering inlined them.
    fn unfold(&mut self, c: &Map<String, Value>) -> Map<String, Value> {
        let mut c = c.clone();
        loop {
            if let Some(Value::String(reference)) = c.get("$ref").cloned() {
                let Some(Value::Object(target)) = resolve(self.canonical, &reference) else {
                    return c;
                };
                self.changes.insert(Change::Inlined);
                let mut merged = target.clone();
                for (key, value) in c {
                    if key != "$ref" {
                        merged.insert(key, value);
                    }
                }
                c = merged;
                continue;
            }
            if let Some(Value::Array(schemas)) = c.get("allOf").cloned() {
                if let [Value::Object(only)] = &schemas[..] {
                    self.changes.insert(Change::SingleAllOf);
                    let mut merged = only.clone();
                    for (key, value) in c {
                        if key != "allOf" {
                            merged.insert(key, value);
                        }
                    }
                    c = merged;
                    continue;
                }
            }
            return c;
        }
    }

    /// The lowered schema `l` of a property the lowering made required, without the `null` it
    /// added (when `c` does not take `null`).
    fn without_added_null(c: &Map<String, Value>, l: &Value) -> Value {
        let Value::Object(l) = l else {
            return l.clone();
        };
        let mut l = l.clone();
        if has_null(l.get("type")) && !has_null(c.get("type")) {
            if let Some(Value::Array(kinds)) = l.get_mut("type") {
                kinds.retain(|kind| kind != "null");
                if let [single] = &kinds[..] {
                    let single = single.clone();
                    l.insert("type".into(), single);
                }
            }
        }
        let c_takes_null = c
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(is_null_branch));
        if let Some(Value::Array(branches)) = l.get("anyOf").cloned() {
            if !c_takes_null && branches.last().is_some_and(is_null_branch) {
                if let [Value::Object(only), _] = &branches[..] {
                    if !c.contains_key("anyOf") {
                        let mut unwrapped = only.clone();
                        for (key, value) in &l {
                            if key != "anyOf" {
                                unwrapped.insert(key.clone(), value.clone());
                            }
                        }
                        return Value::Object(unwrapped);
                    }
                }
                let mut kept = branches;
                kept.pop();
                l.insert("anyOf".into(), Value::Array(kept));
            }
        }
        Value::Object(l)
    }

    fn compare(&mut self, c: &Value, l: &Value) {
        let (c, l) = match (c, l) {
            (Value::Bool(true), Value::Object(l)) if l.is_empty() => {
                self.changes.insert(Change::TrueAsEmpty);
                return;
            }
            (Value::Object(c), Value::Object(l)) => (c, l),
            (c, l) => {
                if c != l {
                    self.unnamed("changed", "schema");
                }
                return;
            }
        };
        if let Some(Value::String(lowered_ref)) = l.get("$ref") {
            match c.get("$ref").and_then(Value::as_str) {
                Some(canonical_ref) if c.len() == l.len() => {
                    let pair = (canonical_ref.to_owned(), lowered_ref.clone());
                    if self.seen.insert(pair) {
                        match (
                            resolve(self.canonical, canonical_ref),
                            resolve(self.lowered, lowered_ref),
                        ) {
                            (Some(c), Some(l)) => self.compare(c, l),
                            _ => self.unnamed("changed", "$ref"),
                        }
                    }
                }
                _ => self.unnamed("added", "$ref"),
            }
            return;
        }
        let c = self.unfold(c);
        let composes = c
            .get("allOf")
            .and_then(Value::as_array)
            .is_some_and(|schemas| schemas.len() > 1)
            || (c.contains_key("properties")
                && (c.contains_key("oneOf") || c.contains_key("anyOf")));
        if composes && !l.contains_key("properties") && l.contains_key("anyOf") {
            self.changes.insert(Change::Flattened);
            return self.compare_flattened(&c, l);
        }
        self.compare_keywords(&c, l);
    }

    /// Every object schema a canonical schema composes (through `$ref`s, `allOf`, `oneOf`
    /// and `anyOf`), for the properties of the union of whole objects made of them.
    fn parts(&self, c: &Map<String, Value>, into: &mut Vec<Map<String, Value>>) {
        if let Some(Value::String(reference)) = c.get("$ref") {
            if let Some(Value::Object(target)) = resolve(self.canonical, reference) {
                self.parts(target, into);
            }
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            for part in c.get(key).and_then(Value::as_array).into_iter().flatten() {
                if let Value::Object(part) = part {
                    self.parts(part, into);
                }
            }
        }
        into.push(c.clone());
    }

    /// A union of whole objects made of `c`'s fields and its flattened enums' variants: each
    /// property of each object against the canonical one it comes from (the one that differs
    /// least, when variants share a name, as a tag does).
    fn compare_flattened(&mut self, c: &Map<String, Value>, l: &Map<String, Value>) {
        let mut parts = Vec::new();
        self.parts(c, &mut parts);
        for branch in l["anyOf"].as_array().into_iter().flatten() {
            let Value::Object(branch) = branch else {
                self.unnamed("changed", "anyOf");
                continue;
            };
            if branch.get("additionalProperties") == Some(&Value::Bool(false)) {
                let closed = parts
                    .iter()
                    .any(|part| part.get("additionalProperties") == Some(&Value::Bool(false)));
                if !closed {
                    self.changes.insert(Change::Closed);
                }
            }
            let branch_required = required(branch);
            for (name, lp) in branch
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let candidates: Vec<(&Map<String, Value>, &Value)> = parts
                    .iter()
                    .filter_map(|part| {
                        let property = part.get("properties")?.get(name)?;
                        Some((part, property))
                    })
                    .collect();
                let mut best: Option<Comparison> = None;
                for (part, cp) in candidates {
                    let mut trial = Comparison::new(self.canonical, self.lowered);
                    trial.seen = self.seen.clone();
                    let made_required = branch_required.contains(name.as_str())
                        && !required(part).contains(name.as_str());
                    let lp = match (made_required, cp) {
                        (true, Value::Object(cp)) => {
                            trial.changes.insert(Change::MadeRequired);
                            Self::without_added_null(cp, lp)
                        }
                        _ => lp.clone(),
                    };
                    trial.compare(cp, &lp);
                    let unnamed = |t: &Comparison| {
                        t.changes
                            .iter()
                            .filter(|change| matches!(change, Change::Unnamed(..)))
                            .count()
                    };
                    if best.as_ref().is_none_or(|b| unnamed(&trial) < unnamed(b)) {
                        best = Some(trial);
                    }
                }
                match best {
                    Some(best) => {
                        self.changes.extend(best.changes);
                        self.seen.extend(best.seen);
                    }
                    None => self.unnamed("added", "properties"),
                }
            }
        }
    }

    fn compare_keywords(&mut self, c: &Map<String, Value>, l: &Map<String, Value>) {
        let told = match (
            c.get("description").and_then(Value::as_str),
            l.get("description").and_then(Value::as_str),
        ) {
            (Some(c), Some(l)) if l != c => l.strip_prefix(c).unwrap_or(l).to_owned(),
            (None, Some(l)) => l.to_owned(),
            _ => String::new(),
        };
        let told = told
            .trim_start()
            .strip_prefix('{')
            .and_then(|told| told.strip_suffix('}'))
            .unwrap_or("");
        let c_required = required(c);
        let l_required = required(l);
        for (key, cv) in c {
            let lv = l.get(key);
            match key.as_str() {
                "$defs" | "definitions" => {}
                "properties" => {
                    let (Some(cps), Some(lps)) = (cv.as_object(), lv.and_then(Value::as_object))
                    else {
                        self.unnamed("dropped", key);
                        continue;
                    };
                    for (name, cp) in cps {
                        let Some(lp) = lps.get(name) else {
                            self.unnamed("dropped", "properties");
                            continue;
                        };
                        let made_required = l_required.contains(name.as_str())
                            && !c_required.contains(name.as_str());
                        match (made_required, cp) {
                            (true, Value::Object(cp_object)) => {
                                let lp = Self::without_added_null(cp_object, lp);
                                self.compare(cp, &lp);
                            }
                            _ => self.compare(cp, lp),
                        }
                    }
                    if lps.len() > cps.len() {
                        self.unnamed("added", "properties");
                    }
                }
                "required" => {
                    if !l_required.is_superset(&c_required) {
                        self.unnamed("dropped", "required");
                    } else if l_required != c_required {
                        self.changes.insert(Change::MadeRequired);
                    }
                }
                "oneOf" | "anyOf" => {
                    let lowered = match (lv, l.get("anyOf")) {
                        (Some(lv), _) => lv,
                        (None, Some(any_of)) if key == "oneOf" => {
                            self.changes.insert(Change::OneOfAsAnyOf);
                            any_of
                        }
                        _ => {
                            self.unnamed("dropped", key);
                            continue;
                        }
                    };
                    self.compare_each(cv, lowered, key);
                }
                "prefixItems" => match (lv, l.get("items")) {
                    (Some(lv), _) => self.compare_each(cv, lv, key),
                    (None, Some(items)) => {
                        self.changes.insert(Change::TupleAsItems);
                        for element in cv.as_array().into_iter().flatten() {
                            self.compare(element, items);
                        }
                    }
                    (None, None) => self.unnamed("dropped", key),
                },
                "items" if c.contains_key("prefixItems") && cv == &Value::Bool(false) => {
                    // Without `prefixItems`, `items` is the tuple's one type, compared there.
                    if lv != Some(cv) && l.contains_key("prefixItems") {
                        self.changes.insert(Change::Dropped(key.clone()));
                    }
                }
                "items" | "additionalProperties" if cv.is_object() => match lv {
                    Some(lv) => self.compare(cv, lv),
                    None => self.unnamed("dropped", key),
                },
                "additionalProperties" if cv == &Value::Bool(false) && lv.is_none() => {
                    self.changes.insert(Change::Unclosed);
                }
                "type" if lv != Some(cv) => {
                    let single = cv.as_array().and_then(|kinds| {
                        let typed: Vec<&Value> = kinds.iter().filter(|k| *k != "null").collect();
                        (typed.len() == 1 && typed.len() < kinds.len()).then(|| typed[0].clone())
                    });
                    match single {
                        Some(single)
                            if lv == Some(&single)
                                && l.get("nullable") == Some(&Value::Bool(true)) =>
                        {
                            self.changes.insert(Change::Nullable);
                        }
                        _ => self.unnamed("changed", key),
                    }
                }
                "const" if lv.is_none() => {
                    if l.get("enum") == Some(&Value::Array(vec![cv.clone()])) {
                        self.changes.insert(Change::ConstAsEnum);
                    } else {
                        self.unnamed("dropped", key);
                    }
                }
                "description" if lv != Some(cv) => {
                    let kept = lv
                        .and_then(Value::as_str)
                        .zip(cv.as_str())
                        .is_some_and(|(l, c)| l.starts_with(c));
                    if !kept {
                        self.unnamed("changed", key);
                    }
                }
                _ => match lv {
                    Some(lv) if lv == cv => {}
                    Some(_) => self.unnamed("changed", key),
                    None if told.split(", ").any(|t| t == format!("{key}: {cv}")) => {
                        self.changes.insert(Change::Described(key.clone()));
                    }
                    None => {
                        self.changes.insert(Change::Dropped(key.clone()));
                    }
                },
            }
        }
        for (key, lv) in l {
            if c.contains_key(key) {
                continue;
            }
            let explained = match key.as_str() {
                "additionalProperties" if lv == &Value::Bool(false) => {
                    self.changes.insert(Change::Closed);
                    true
                }
                "required" => {
                    self.changes.insert(Change::MadeRequired);
                    true
                }
                "nullable" => self.changes.contains(&Change::Nullable),
                "anyOf" => c.contains_key("oneOf"),
                "enum" => c.contains_key("const"),
                "items" => c.contains_key("prefixItems"),
                "description" => !told.is_empty(),
                _ => false,
            };
            if !explained {
                self.unnamed("added", key);
            }
        }
    }

    fn compare_each(&mut self, c: &Value, l: &Value, key: &str) {
        match (c.as_array(), l.as_array()) {
            (Some(c), Some(l)) if c.len() == l.len() => {
                for (c, l) in c.iter().zip(l) {
                    self.compare(c, l);
                }
            }
            _ => self.unnamed("changed", key),
        }
    }
}

/// `keywords` as `` `a`/`b` ``.
fn listed(keywords: &[&str]) -> String {
    keywords
        .iter()
        .map(|keyword| format!("`{keyword}`"))
        .collect::<Vec<_>>()
        .join("/")
}

/// What `dialect` does with `canonical`: kept, rewritten (the changes, in words), or refused
/// (the rule); and the changes, for the legend.
fn verdict(canonical: &Value, dialect: Dialect) -> (String, BTreeSet<Change>) {
    let lowered = match lower("t", canonical, dialect) {
        Ok(lowered) if lowered == *canonical => return ("kept".into(), BTreeSet::new()),
        Ok(lowered) => lowered,
        Err(error) => return (format!("**refused**: {}", error.rule()), BTreeSet::new()),
    };
    let mut comparison = Comparison::new(canonical, &lowered);
    comparison.compare(canonical, &lowered);
    let changes = comparison.changes;
    let mut said = Vec::new();
    let (mut described, mut dropped) = (Vec::new(), Vec::new());
    let (mut added, mut removed, mut changed) = (Vec::new(), Vec::new(), Vec::new());
    for change in &changes {
        match change {
            Change::Described(key) => described.push(key.as_str()),
            Change::Dropped(key) => dropped.push(key.as_str()),
            Change::Unnamed("added", key) => added.push(key.as_str()),
            Change::Unnamed("dropped", key) => removed.push(key.as_str()),
            Change::Unnamed(_, key) => changed.push(key.as_str()),
            named => said.push(named.words().0),
        }
    }
    if !described.is_empty() {
        said.push(format!("{} moved to the description", listed(&described)));
    }
    if !dropped.is_empty() {
        said.push(format!("{} dropped", listed(&dropped)));
    }
    let unnamed: Vec<String> = [("added", added), ("dropped", removed), ("changed", changed)]
        .into_iter()
        .filter(|(_, keywords)| !keywords.is_empty())
        .map(|(what, keywords)| format!("{what}: {}", listed(&keywords)))
        .collect();
    if !unnamed.is_empty() {
        // No class covers it: the keywords, and a failing test until it has a name.
        said.push(format!("keywords {}", unnamed.join("; ")));
    }
    (format!("rewritten: {}", said.join(", ")), changes)
}

/// The legend and the table, and the cells no class of change covers.
fn table() -> (String, Vec<String>) {
    let dialects = [
        Dialect::OpenAiStrict,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
        Dialect::GeminiJsonSchema,
        Dialect::OpenAi,
    ];
    let mut table = String::from(
        "| shape | Rust type | `OpenAiStrict` | `AnthropicStrict` | `Gemini` | `GeminiJsonSchema` | `OpenAi`, `Anthropic`, `Mcp` |\n\
         |---|---|---|---|---|---|---|\n",
    );
    let mut seen = BTreeSet::new();
    let mut unnamed = Vec::new();
    for entry in corpus() {
        let canonical = entry.tool.definition().parameters.clone();
        let mut cells = Vec::new();
        for dialect in dialects {
            let (cell, changes) = verdict(&canonical, dialect);
            if changes.iter().any(|c| matches!(c, Change::Unnamed(..))) {
                unnamed.push(format!("{} in {dialect:?}: {cell}", entry.name));
            }
            seen.extend(changes);
            cells.push(cell.replace('|', "\\|"));
        }
        table.push_str(&format!(
            "| {} | `{}` | {} |\n",
            entry.shape,
            entry.rust.replace(' ', ""),
            cells.join(" | ")
        ));
    }
    let mut legend = String::from("What the rewrites in the table are:\n\n");
    for change in &seen {
        if let (words, Some(meaning)) = match change {
            Change::Described(_) | Change::Dropped(_) | Change::Unnamed(..) => continue,
            named => named.words(),
        } {
            legend.push_str(&format!("- {words}: {meaning};\n"));
        }
    }
    legend.push_str(
        "- `x`/`y` moved to the description: keywords the dialect does not take, told in the \
         description as `{x: 1, y: 2}` so the model may still follow them;\n\
         - `x`/`y` dropped: keywords the dialect does not take, and hints (`format`s) it does \
         not know, left out.\n",
    );
    (format!("{legend}\n{table}"), unnamed)
}

#[test]
fn the_guides_table_is_what_the_lowering_does() {
    let guide = std::fs::read_to_string(GUIDE).expect("the describe guide");
    let start = guide.find(BEGIN).expect("the table's start marker") + BEGIN.len();
    let end = guide.find(END).expect("the table's end marker");
    let (built, unnamed) = table();
    assert!(
        unnamed.is_empty(),
        "rewrites no class of change names (give them one in `Change`):\n{}",
        unnamed.join("\n")
    );
    let written = guide[start..end].trim();
    if written == built.trim() {
        return;
    }
    if std::env::var_os("TOOL_SDK_WRITE_DIALECT_TABLE").is_some() {
        let updated = format!("{}\n\n{}\n{}", &guide[..start], built.trim(), &guide[end..]);
        std::fs::write(GUIDE, updated).expect("the guide is written");
        return;
    }
    panic!(
        "the table in {GUIDE} differs from what the lowering does (rerun with \
         TOOL_SDK_WRITE_DIALECT_TABLE=1 to write it):\n{built}"
    );
}

/// A rewrite no class names falls back to the keywords, and is told apart so that the test
/// fails.
#[test]
fn a_rewrite_no_class_names_is_caught() {
    let canonical = serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let lowered =
        serde_json::json!({"type": "object", "properties": {"a": {"type": "string", "x-hint": 1}}});
    let mut comparison = Comparison::new(&canonical, &lowered);
    comparison.compare(&canonical, &lowered);
    assert_eq!(
        comparison.changes.into_iter().collect::<Vec<_>>(),
        [Change::Unnamed("added", "x-hint".into())]
    );
}
