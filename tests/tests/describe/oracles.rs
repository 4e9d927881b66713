//! Every argument type of the corpus (`tool_sdk_tests::corpus`), through every dialect, held
//! against references that are not the lowering's code (`tool_sdk_tests::oracles`):
//!
//! - OpenAI strict: a schema we lower is one the `openai` package's strict transform leaves as
//!   it is and breaks none of OpenAI's documented rules; one we refuse, the package cannot make
//!   strict either.
//! - Anthropic strict: a schema we lower breaks none of Anthropic's documented rules; one we
//!   refuse breaks a rule no lowering can mend.
//! - Gemini: `google-genai`'s `types.Schema` takes every schema we lower for `parameters`, and
//!   its `types.JSONSchema` every one for `parametersJsonSchema`.
//!
//! Where a reference and the lowering disagree, the failure names the tool, the pointer and the
//! rule. Each lowered schema must also take the sample arguments its tool decodes.
//!
//! On top of the corpus, two families (`tool_sdk_tests::shapes`) go through the same checks, in
//! every dialect: 256 property-generated shapes of Rust types, rendered as schemars renders
//! them, and real schemars schemas of Rust types a macro composes from the corpus' types. The
//! dialects that take the canonical schema keep every schema of them, refusing only one no
//! dialect takes.

use jsonschema::error::ValidationErrorKind;
use proptest::strategy::{Strategy as _, ValueTree as _};
use proptest::test_runner::TestRunner;
use serde_json::Value;
use tool_sdk::describe::{lower, Dialect, LoweringError};
use tool_sdk::ToolRegistry;
use tool_sdk_tests::corpus::{corpus, Entry};
use tool_sdk_tests::oracles::python::{gemini_schema_errors, openai_strict_transform};
use tool_sdk_tests::oracles::{
    anthropic_strict, first_difference, gemini, openai_strict, Violation,
};
use tool_sdk_tests::shapes::real::family;
use tool_sdk_tests::shapes::{shape, tool_schema};

fn canonical(entry: &Entry) -> Value {
    entry.tool.definition().parameters.clone()
}

/// A tool's parameters schema and arguments it takes.
struct Case {
    name: String,
    schema: Value,
    sample: Value,
}

/// How many shapes the generated family has.
const GENERATED: usize = 256;

/// The corpus, the generated family (the same shapes in every run), then the real family.
fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = corpus()
        .iter()
        .map(|entry| Case {
            name: entry.name.to_owned(),
            schema: canonical(entry),
            sample: entry.sample.clone(),
        })
        .collect();
    let mut runner = TestRunner::deterministic();
    for i in 0..GENERATED {
        let shape = shape().new_tree(&mut runner).expect("a shape").current();
        let (schema, sample) = tool_schema(&shape);
        cases.push(Case {
            name: format!("generated #{i}: {shape:?}"),
            schema,
            sample,
        });
    }
    for real in family() {
        cases.push(Case {
            name: format!("real `{}`", real.rust),
            schema: real.tool.definition().parameters.clone(),
            sample: real.sample,
        });
    }
    cases
}

/// What in `instance` `schema` refuses, leaving out missing properties when `strict` (strict
/// mode makes every property required, and the model then says `null` for one it leaves out,
/// which a sample written for the canonical schema does not).
fn refusals(schema: &Value, instance: &Value, strict: bool) -> Vec<String> {
    let validator = jsonschema::validator_for(schema)
        .unwrap_or_else(|error| panic!("not a schema ({error}): {schema}"));
    validator
        .iter_errors(instance)
        .filter(|error| !(strict && matches!(error.kind(), ValidationErrorKind::Required { .. })))
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect()
}

fn unmendable(violations: Vec<Violation>) -> Vec<Violation> {
    violations.into_iter().filter(|v| !v.mendable).collect()
}

#[tokio::test]
async fn the_corpus_has_forty_types_and_each_tool_takes_its_sample() {
    let entries = corpus();
    assert!(entries.len() >= 40, "{} types", entries.len());
    let mut registry = ToolRegistry::new();
    for entry in &entries {
        registry.register_arc(entry.tool.clone()).unwrap();
    }
    for entry in &entries {
        let arguments = entry.sample.to_string();
        registry
            .call(entry.name, &arguments)
            .await
            .unwrap_or_else(|error| panic!("{}: {error}", entry.name));
    }
}

/// Each tool of the real family decodes its sample, made by the type's constructors.
#[tokio::test]
async fn the_real_family_has_sixty_types_and_each_tool_takes_its_sample() {
    let family = family();
    assert!(family.len() >= 60, "{} types", family.len());
    for real in family {
        let mut registry = ToolRegistry::new();
        registry.register_arc(real.tool.clone()).unwrap();
        registry
            .call("real", &real.sample.to_string())
            .await
            .unwrap_or_else(|error| panic!("real `{}`: {error}", real.rust));
    }
}

#[test]
fn every_generated_and_real_sample_fits_its_canonical_schema() {
    let cases = cases();
    let families = cases
        .iter()
        .filter(|case| case.name.starts_with("generated") || case.name.starts_with("real"));
    let mut verdicts = std::collections::BTreeMap::<(String, String, bool), usize>::new();
    for case in families {
        let family = case.name.split(' ').next().unwrap_or_default().to_owned();
        for dialect in Dialect::ALL {
            let taken = lower("t", &case.schema, dialect).is_ok();
            *verdicts
                .entry((family.clone(), format!("{dialect:?}"), taken))
                .or_default() += 1;
        }
        let refused = refusals(&case.schema, &case.sample, false);
        assert!(refused.is_empty(), "{}: {refused:?}", case.name);
    }
    // Each family reaches both verdicts in every dialect that refuses some shape of it (maps,
    // tuples of different types); Gemini's JSON Schema and the dialects that take the canonical
    // schema say every shape they have.
    println!("families, (family, dialect, lowered): count: {verdicts:?}");
    for family in ["generated", "real"] {
        let of = |dialect: &str, taken: bool| {
            verdicts.contains_key(&(family.to_owned(), dialect.to_owned(), taken))
        };
        for dialect in ["OpenAiStrict", "AnthropicStrict", "Gemini"] {
            assert!(
                of(dialect, true) && of(dialect, false),
                "{family}: {verdicts:?}"
            );
        }
        for dialect in ["GeminiJsonSchema", "OpenAi", "Anthropic", "Mcp"] {
            assert!(
                of(dialect, true) && !of(dialect, false),
                "{family}: {verdicts:?}"
            );
        }
    }
}

#[test]
fn openai_strict_verdicts_agree_with_the_openai_package_and_rules() {
    let cases = cases();
    let canonicals: Vec<Value> = cases.iter().map(|case| case.schema.clone()).collect();
    let by_package = openai_strict_transform(&canonicals);
    let mut lowered = Vec::new();
    for (case, packaged) in cases.iter().zip(&by_package) {
        match lower("t", &case.schema, Dialect::OpenAiStrict) {
            Ok(strict) => {
                let broken = openai_strict::violations(&strict);
                assert!(
                    broken.is_empty(),
                    "{}: breaks OpenAI's rules: {broken:?}",
                    case.name
                );
                let refused = refusals(&strict, &case.sample, true);
                assert!(
                    refused.is_empty(),
                    "{}: refuses its sample: {refused:?}",
                    case.name
                );
                lowered.push((case, strict));
            }
            Err(error) => {
                // The package raises, or what it makes still breaks a rule it cannot mend.
                let agreed = packaged.get("error").is_some()
                    || !unmendable(openai_strict::violations(packaged)).is_empty();
                assert!(
                    agreed,
                    "{}: refused at `{}` ({}), yet the package makes it strict: {packaged}",
                    case.name,
                    error.pointer(),
                    error.rule()
                );
            }
        }
    }
    let schemas: Vec<Value> = lowered.iter().map(|(_, strict)| strict.clone()).collect();
    let again = openai_strict_transform(&schemas);
    for ((case, strict), again) in lowered.iter().zip(&again) {
        if let Some(pointer) = first_difference(strict, again) {
            panic!(
                "{}: at `{pointer}`: the openai package's strict transform changes our lowering \
                 ({strict} became {again})",
                case.name
            );
        }
    }
}

#[test]
fn anthropic_strict_verdicts_agree_with_anthropics_rules() {
    for case in cases() {
        match lower("t", &case.schema, Dialect::AnthropicStrict) {
            Ok(strict) => {
                let broken = anthropic_strict::violations(&strict);
                assert!(
                    broken.is_empty(),
                    "{}: breaks Anthropic's rules: {broken:?}",
                    case.name
                );
                let refused = refusals(&strict, &case.sample, false);
                assert!(
                    refused.is_empty(),
                    "{}: refuses its sample: {refused:?}",
                    case.name
                );
            }
            Err(error) => {
                let broken = unmendable(anthropic_strict::violations(&case.schema));
                assert!(
                    !broken.is_empty(),
                    "{}: refused at `{}` ({}), yet it breaks no rule a lowering cannot mend",
                    case.name,
                    error.pointer(),
                    error.rule()
                );
            }
        }
    }
}

/// A schema of Gemini's OpenAPI subset as JSON Schema, for a validator: `nullable: true` as a
/// union with `null`.
fn as_json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(object) => {
            let mut out: serde_json::Map<String, Value> = object
                .iter()
                .filter(|(key, _)| *key != "nullable")
                .map(|(key, value)| {
                    let value = match key.as_str() {
                        "properties" | "$defs" => Value::Object(
                            value
                                .as_object()
                                .into_iter()
                                .flatten()
                                .map(|(name, child)| (name.clone(), as_json_schema(child)))
                                .collect(),
                        ),
                        "items" | "additionalProperties" => as_json_schema(value),
                        "anyOf" | "oneOf" | "prefixItems" => Value::Array(
                            value
                                .as_array()
                                .into_iter()
                                .flatten()
                                .map(as_json_schema)
                                .collect(),
                        ),
                        _ => value.clone(),
                    };
                    (key.clone(), value)
                })
                .collect();
            if object.get("nullable") != Some(&Value::Bool(true)) {
                return Value::Object(out);
            }
            if let Some(Value::Array(values)) = out.get_mut("enum") {
                values.push(Value::Null);
            }
            match out.get("type").cloned() {
                Some(Value::String(kind)) => {
                    out.insert("type".into(), serde_json::json!([kind, "null"]));
                    Value::Object(out)
                }
                _ => serde_json::json!({"anyOf": [Value::Object(out), {"type": "null"}]}),
            }
        }
        other => other.clone(),
    }
}

/// The schema at `pointer` (a pointer along the walk of the lowering, which goes through
/// `$ref`s and a one-schema `allOf`) in `root`, with `root`'s `$defs` beside it so that its
/// references resolve as they did.
fn at_pointer(root: &Value, pointer: &str) -> Option<Value> {
    let mut here = root;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        here = loop {
            let step = match here {
                Value::Object(object) => object.get(&token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            if let Some(step) = step {
                break step;
            }
            here = match here.get("$ref").and_then(Value::as_str) {
                Some(reference) => root.pointer(reference.strip_prefix('#')?)?,
                None => here.get("allOf")?.get(0)?,
            };
        };
    }
    let mut found = here.clone();
    if let (Value::Object(object), Some(defs)) = (&mut found, root.get("$defs")) {
        object.entry("$defs").or_insert_with(|| defs.clone());
    }
    Some(found)
}

/// Gemini's verdicts, held against `google-genai`: every schema lowered for `parameters` goes
/// through the package's own processing for a Developer API client and its `Schema` type, and
/// every one for `parametersJsonSchema` through its `JSONSchema` type (with `prefixItems`,
/// which the API takes); each takes its tool's sample arguments. Every refusal is one the package makes too, of the canonical schema
/// at the refusal's pointer, or one of the documented rules of `oracles::gemini`.
#[test]
fn gemini_verdicts_agree_with_google_genai_and_the_api_reference() {
    for (dialect, json_schema) in [(Dialect::Gemini, false), (Dialect::GeminiJsonSchema, true)] {
        let name = format!("{dialect:?}");
        let mut lowered = Vec::new();
        let mut refused = Vec::new();
        for case in cases() {
            match lower("t", &case.schema, dialect) {
                Ok(schema) => {
                    let refused = refusals(&as_json_schema(&schema), &case.sample, false);
                    assert!(
                        refused.is_empty(),
                        "{}: the {dialect:?} schema refuses its sample: {refused:?}",
                        case.name
                    );
                    lowered.push((case.name, schema));
                }
                Err(error) => {
                    let part = at_pointer(&case.schema, error.pointer()).unwrap_or_else(|| {
                        panic!("{}: no schema at `{}`", case.name, error.pointer())
                    });
                    refused.push((case.name, error, part));
                }
            }
        }
        let schemas: Vec<Value> = lowered.iter().map(|(_, schema)| schema.clone()).collect();
        for ((name, schema), error) in lowered
            .iter()
            .zip(gemini_schema_errors(&schemas, json_schema))
        {
            assert!(
                error.is_none(),
                "{name}: google-genai refuses for {dialect:?} {schema}: {error:?}"
            );
        }
        let parts: Vec<Value> = refused.iter().map(|(_, _, part)| part.clone()).collect();
        for ((tool, error, part), package) in refused
            .iter()
            .zip(gemini_schema_errors(&parts, json_schema))
        {
            if package.is_some() {
                continue;
            }
            assert!(
                gemini::documented(&name, tool, error.pointer(), error.rule()).is_some(),
                "{tool}: refused for {dialect:?} at `{}` ({}), yet google-genai takes {part} \
                 and no documented rule of the API is listed for it",
                error.pointer(),
                error.rule()
            );
        }
    }
}

/// What every provider takes — primitives, options, vectors, structs, enums in every serde
/// representation, flattening, renames, defaults, bounds, hand-written string schemas — every
/// dialect takes: a refusal there is the lowering's mistake, whatever the references say of
/// what it refuses elsewhere.
#[test]
fn what_every_provider_takes_every_dialect_takes() {
    let universal = |shape: &str| {
        [
            "primitive",
            "option",
            "vector",
            "struct",
            "nested struct",
            "flattened struct",
            "flattened enum",
            "flattened enums (two)",
            "rename",
            "default and skip",
            "deny_unknown_fields",
            "schemars range, length, regex",
        ]
        .contains(&shape)
            || shape.starts_with("enum")
    };
    for entry in corpus().iter().filter(|entry| universal(entry.shape)) {
        for dialect in Dialect::ALL {
            if let Err(error) = lower(entry.name, &canonical(entry), dialect) {
                panic!("{} ({}) is refused: {error}", entry.name, entry.shape);
            }
        }
    }
}

/// Over the corpus and both families: the dialects that take the canonical schema keep it (but
/// for boolean subschemas said as objects), and it takes its sample; a schema they refuse is one no dialect takes (invalid).
#[test]
fn the_canonical_dialects_keep_every_schema_or_refuse_one_no_dialect_takes() {
    for case in cases() {
        for dialect in Dialect::ALL
            .into_iter()
            .filter(|dialect| dialect.takes_canonical())
        {
            match lower("t", &case.schema, dialect) {
                Ok(kept) => {
                    assert!(
                        kept_but_booleans(&kept, &case.schema),
                        "{}: {dialect:?} rewrote it: {kept}",
                        case.name
                    );
                    let refused = refusals(&kept, &case.sample, false);
                    assert!(
                        refused.is_empty(),
                        "{}: the {dialect:?} schema refuses its sample: {refused:?}",
                        case.name
                    );
                }
                Err(error) => {
                    assert!(
                        matches!(error, LoweringError::Invalid { .. }),
                        "{}: {error}",
                        case.name
                    );
                    for other in Dialect::ALL {
                        let verdict = lower("t", &case.schema, other);
                        assert!(
                            matches!(verdict, Err(LoweringError::Invalid { .. })),
                            "{}: {dialect:?} refuses it as invalid ({error}), {other:?} does not",
                            case.name
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_dialects_that_take_the_canonical_schema_refuse_only_a_dangling_ref() {
    for entry in corpus() {
        for dialect in [Dialect::OpenAi, Dialect::Anthropic, Dialect::Mcp] {
            let verdict = lower(entry.name, &canonical(&entry), dialect);
            match entry.name {
                "dangling" => {
                    assert!(
                        matches!(verdict, Err(LoweringError::Invalid { .. })),
                        "{verdict:?}"
                    )
                }
                _ => {
                    let kept = verdict.unwrap_or_else(|error| panic!("{}: {error}", entry.name));
                    assert!(
                        kept_but_booleans(&kept, &canonical(&entry)),
                        "{}: {kept}",
                        entry.name
                    );
                }
            }
        }
    }
}

/// Whether `kept` is `schema` but for boolean subschemas said as the object schemas that
/// mean the same (`true` as `{}`, `false` as `{"not": {}}`), which clients that take only
/// objects where a schema stands need.
fn kept_but_booleans(kept: &Value, schema: &Value) -> bool {
    match (kept, schema) {
        _ if kept == schema => true,
        (Value::Object(object), Value::Bool(true)) => object.is_empty(),
        (Value::Object(object), Value::Bool(false)) => {
            object.len() == 1 && object.get("not") == Some(&Value::Object(Default::default()))
        }
        (Value::Object(kept), Value::Object(schema)) => {
            kept.len() == schema.len()
                && schema.iter().all(|(key, value)| {
                    kept.get(key)
                        .is_some_and(|kept| kept_but_booleans(kept, value))
                })
        }
        (Value::Array(kept), Value::Array(schema)) => {
            kept.len() == schema.len()
                && kept
                    .iter()
                    .zip(schema)
                    .all(|(kept, value)| kept_but_booleans(kept, value))
        }
        _ => false,
    }
}

#[test]
fn a_disagreement_is_named_by_its_pointer() {
    use serde_json::json;
    let ours = json!({"properties": {"a": {"type": "string"}}, "required": ["a"]});
    let theirs = json!({"properties": {"a": {"type": "string", "format": "x"}}, "required": ["a"]});
    assert_eq!(
        first_difference(&ours, &theirs).as_deref(),
        Some("/properties/a/format")
    );
    let shorter = json!({"properties": {"a": {"type": "string"}}, "required": []});
    assert_eq!(
        first_difference(&ours, &shorter).as_deref(),
        Some("/required")
    );
    assert_eq!(first_difference(&ours, &ours), None);
}
