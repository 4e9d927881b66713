//! The Berkeley Function Calling Leaderboard corpus, as its PyPI package `bfcl-eval` ships it
//! (`scripts/bfcl.sh` fetches it, pinned and hash-checked): real function definitions, mapped
//! from BFCL's type words to JSON Schema, with their ground-truth calls.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

/// The four categories shipped in the corpus.
pub const CATEGORIES: [&str; 4] = [
    "BFCL_v4_simple_python",
    "BFCL_v4_multiple",
    "BFCL_v4_parallel",
    "BFCL_v4_parallel_multiple",
];

/// One question of a category: the functions offered and the calls expected.
#[derive(Debug, Clone)]
pub struct Entry {
    /// BFCL's id, such as `simple_python_0`.
    pub id: String,
    /// The user's question, all turns joined.
    pub question: String,
    /// The functions offered with the question.
    pub functions: Vec<Function>,
    /// Expected calls: function name (as BFCL spells it) and arguments.
    pub ground_truth: Vec<(String, Value)>,
}

/// A function definition with its parameters as JSON Schema.
#[derive(Debug, Clone)]
pub struct Function {
    /// The name as BFCL spells it (dots included).
    pub name: String,
    /// What the function does.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

#[derive(Deserialize)]
struct RawEntry {
    id: String,
    question: Vec<Vec<Message>>,
    function: Vec<RawFunction>,
}

#[derive(Deserialize)]
struct Message {
    content: String,
}

#[derive(Deserialize)]
struct RawFunction {
    name: String,
    description: String,
    parameters: Value,
}

#[derive(Deserialize)]
struct RawAnswer {
    id: String,
    ground_truth: Vec<Map<String, Value>>,
}

/// The version of `bfcl-eval` the corpus comes from; `scripts/bfcl.sh` pins the same.
pub const BFCL_EVAL_VERSION: &str = "2026.3.23";

/// Where the corpus is: `TOOL_SDK_BFCL_DIR`, else where `scripts/bfcl.sh` unpacks it
/// (`.corpora/bfcl-eval-VERSION` in the checkout).
pub fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TOOL_SDK_BFCL_DIR") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(".corpora")
        .join(format!("bfcl-eval-{BFCL_EVAL_VERSION}"))
}

/// Every entry of one category, with its ground truth.
pub fn load(category: &str) -> Vec<Entry> {
    let dir = corpus_dir();
    let questions = read(&dir.join(format!("{category}.json")));
    let answers = read(&dir.join("possible_answer").join(format!("{category}.json")));
    let answers: Vec<RawAnswer> = lines(&answers);
    lines::<RawEntry>(&questions)
        .into_iter()
        .map(|raw| {
            let answer = answers
                .iter()
                .find(|a| a.id == raw.id)
                .unwrap_or_else(|| panic!("no ground truth for {}", raw.id));
            let functions: Vec<Function> = raw
                .function
                .into_iter()
                .map(|f| Function {
                    name: f.name,
                    description: f.description,
                    parameters: to_json_schema(&f.parameters),
                })
                .collect();
            let ground_truth = answer
                .ground_truth
                .iter()
                .flat_map(|call| call.iter())
                .map(|(name, arguments)| {
                    let required = functions
                        .iter()
                        .find(|f| &f.name == name)
                        .and_then(|f| f.parameters["required"].as_array().cloned())
                        .unwrap_or_default();
                    (name.clone(), ground_truth_arguments(arguments, &required))
                })
                .collect();
            Entry {
                question: raw
                    .question
                    .iter()
                    .flatten()
                    .map(|m| m.content.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                functions,
                ground_truth,
                id: raw.id,
            }
        })
        .collect()
}

/// Every entry of every category.
pub fn load_all() -> Vec<Entry> {
    CATEGORIES.iter().flat_map(|c| load(c)).collect()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "cannot read the BFCL corpus at {} ({e}); run ./scripts/test.sh, which fetches it \
             from PyPI, or set TOOL_SDK_BFCL_DIR to its folder",
            path.display()
        )
    })
}

fn lines<T: for<'de> Deserialize<'de>>(text: &str) -> Vec<T> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad corpus line ({e}): {l}")))
        .collect()
}

/// BFCL's parameter schema in JSON Schema terms: `dict` → `object`, `float` → `number`,
/// `tuple` → `array`, `any` → no type; BFCL's own `optional` flag is dropped.
pub fn to_json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(object) => {
            let mut out = Map::new();
            for (key, value) in object {
                match key.as_str() {
                    "type" => match value.as_str() {
                        Some("dict") => {
                            out.insert(key.clone(), "object".into());
                        }
                        Some("float") => {
                            out.insert(key.clone(), "number".into());
                        }
                        Some("tuple") => {
                            out.insert(key.clone(), "array".into());
                        }
                        Some("any") => {}
                        _ => {
                            out.insert(key.clone(), value.clone());
                        }
                    },
                    "optional" => {}
                    "properties" => {
                        let properties = value
                            .as_object()
                            .map(|p| {
                                p.iter()
                                    .map(|(k, v)| (k.clone(), to_json_schema(v)))
                                    .collect()
                            })
                            .unwrap_or_default();
                        out.insert(key.clone(), Value::Object(properties));
                    }
                    "items" | "additionalProperties" => {
                        out.insert(key.clone(), to_json_schema(value));
                    }
                    _ => {
                        out.insert(key.clone(), value.clone());
                    }
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// A ground-truth arguments object: `""` among a parameter's allowed values means it may be left
/// out, and an optional parameter that may be left out is; every other parameter gets its first
/// allowed value other than `""`.
fn ground_truth_arguments(arguments: &Value, required: &[Value]) -> Value {
    let mut out = Map::new();
    if let Some(object) = arguments.as_object() {
        for (name, alternatives) in object {
            let omittable = alternatives
                .as_array()
                .is_some_and(|a| a.iter().any(|v| v == ""));
            if omittable && !required.iter().any(|r| r == name.as_str()) {
                continue;
            }
            if let Some(value) = first_alternative(alternatives) {
                out.insert(name.clone(), value);
            }
        }
    }
    Value::Object(out)
}

/// The first allowed value (other than `""`) of each field of a nested object.
fn first_alternative_object(arguments: &Value) -> Value {
    let mut out = Map::new();
    if let Some(object) = arguments.as_object() {
        for (name, alternatives) in object {
            if let Some(value) = first_alternative(alternatives) {
                out.insert(name.clone(), value);
            }
        }
    }
    Value::Object(out)
}

fn first_alternative(alternatives: &Value) -> Option<Value> {
    let first = match alternatives {
        Value::Array(values) => values.iter().find(|v| *v != "")?,
        other if other == "" => return None,
        other => other,
    };
    Some(unwrap_nested(first))
}

/// Objects nested in a ground-truth value carry lists of alternatives in their fields too.
fn unwrap_nested(value: &Value) -> Value {
    match value {
        Value::Object(_) => first_alternative_object(value),
        Value::Array(items) => Value::Array(items.iter().map(unwrap_nested).collect()),
        other => other.clone(),
    }
}
