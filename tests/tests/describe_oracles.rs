//! Every argument type of the corpus (`tool_sdk_tests::corpus`), through every dialect, held
//! against references that are not the lowering's code (`tool_sdk_tests::oracles`):
//!
//! - OpenAI strict: a schema we lower is one the `openai` package's strict transform leaves as
//!   it is and breaks none of OpenAI's documented rules; one we refuse, the package cannot make
//!   strict either.
//! - Anthropic strict: a schema we lower breaks none of Anthropic's documented rules; one we
//!   refuse breaks a rule no lowering can mend.
//! - Gemini: `google-genai`'s `types.Schema` takes every schema we lower.
//!
//! Where a reference and the lowering disagree, the failure names the tool, the pointer and the
//! rule. Each lowered schema must also take the sample arguments its tool decodes.

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;
use tool_sdk::describe::{lower, Dialect, LoweringErrorKind};
use tool_sdk::ToolRegistry;
use tool_sdk_tests::corpus::{corpus, Entry};
use tool_sdk_tests::oracles::python::{gemini_schema_errors, openai_strict_transform};
use tool_sdk_tests::oracles::{anthropic_strict, openai_strict, Violation};

fn canonical(entry: &Entry) -> Value {
    entry.tool.definition().parameters.clone()
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

#[test]
fn openai_strict_verdicts_agree_with_the_openai_package_and_rules() {
    let entries = corpus();
    let canonicals: Vec<Value> = entries.iter().map(canonical).collect();
    let by_package = openai_strict_transform(&canonicals);
    let mut lowered = Vec::new();
    for ((entry, schema), packaged) in entries.iter().zip(&canonicals).zip(&by_package) {
        match lower(entry.name, schema, Dialect::OpenAiStrict) {
            Ok(strict) => {
                let broken = openai_strict::violations(&strict);
                assert!(
                    broken.is_empty(),
                    "{}: breaks OpenAI's rules: {broken:?}",
                    entry.name
                );
                let refused = refusals(&strict, &entry.sample, true);
                assert!(
                    refused.is_empty(),
                    "{}: refuses its sample: {refused:?}",
                    entry.name
                );
                lowered.push(strict);
            }
            Err(error) => {
                // The package raises, or what it makes still breaks a rule it cannot mend.
                let agreed = packaged.get("error").is_some()
                    || !unmendable(openai_strict::violations(packaged)).is_empty();
                assert!(
                    agreed,
                    "{}: refused at `{}` ({}), yet the package makes it strict: {packaged}",
                    entry.name, error.pointer, error.rule
                );
            }
        }
    }
    let again = openai_strict_transform(&lowered);
    for (strict, again) in lowered.iter().zip(&again) {
        assert_eq!(
            again, strict,
            "the openai package would change our lowering"
        );
    }
}

#[test]
fn anthropic_strict_verdicts_agree_with_anthropics_rules() {
    for entry in corpus() {
        let schema = canonical(&entry);
        match lower(entry.name, &schema, Dialect::AnthropicStrict) {
            Ok(strict) => {
                let broken = anthropic_strict::violations(&strict);
                assert!(
                    broken.is_empty(),
                    "{}: breaks Anthropic's rules: {broken:?}",
                    entry.name
                );
                let refused = refusals(&strict, &entry.sample, false);
                assert!(
                    refused.is_empty(),
                    "{}: refuses its sample: {refused:?}",
                    entry.name
                );
            }
            Err(error) => {
                let broken = unmendable(anthropic_strict::violations(&schema));
                assert!(
                    !broken.is_empty(),
                    "{}: refused at `{}` ({}), yet it breaks no rule a lowering cannot mend",
                    entry.name,
                    error.pointer,
                    error.rule
                );
            }
        }
    }
}

#[test]
fn google_genai_takes_every_gemini_schema() {
    let entries = corpus();
    let mut lowered = Vec::new();
    for entry in &entries {
        match lower(entry.name, &canonical(entry), Dialect::Gemini) {
            Ok(schema) => lowered.push((entry.name, schema)),
            Err(error) => assert!(
                matches!(
                    error.kind,
                    LoweringErrorKind::Unsupported | LoweringErrorKind::Invalid
                ),
                "{error}"
            ),
        }
    }
    let schemas: Vec<Value> = lowered.iter().map(|(_, schema)| schema.clone()).collect();
    for ((name, schema), error) in lowered.iter().zip(gemini_schema_errors(&schemas)) {
        assert!(
            error.is_none(),
            "{name}: google-genai refuses {schema}: {error:?}"
        );
    }
}

#[test]
fn the_dialects_that_take_the_canonical_schema_refuse_only_a_dangling_ref() {
    for entry in corpus() {
        for dialect in [Dialect::OpenAi, Dialect::Anthropic, Dialect::Mcp] {
            let verdict = lower(entry.name, &canonical(&entry), dialect);
            match entry.name {
                "dangling" => {
                    assert_eq!(verdict.map_err(|e| e.kind), Err(LoweringErrorKind::Invalid))
                }
                _ => assert_eq!(verdict.as_ref(), Ok(&canonical(&entry)), "{}", entry.name),
            }
        }
    }
}

/// The verdict of every dialect on every type of the corpus, printed as a table (`cargo test
/// --test describe_oracles -- --nocapture verdicts`).
#[test]
fn verdicts_by_type_and_dialect() {
    let dialects = [
        Dialect::OpenAiStrict,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
        Dialect::OpenAi,
    ];
    println!("| type | shape | OpenAiStrict | AnthropicStrict | Gemini | OpenAi, Anthropic, Mcp |");
    println!("|---|---|---|---|---|---|");
    for entry in corpus() {
        let cells: Vec<String> = dialects
            .iter()
            .map(
                |dialect| match lower(entry.name, &canonical(&entry), *dialect) {
                    Ok(schema) if schema == canonical(&entry) => "kept".to_owned(),
                    Ok(_) => "rewritten".to_owned(),
                    Err(error) => format!("refused: {}", error.rule),
                },
            )
            .collect();
        println!(
            "| `{}` | {} | {} |",
            entry.name,
            entry.shape,
            cells.join(" | ")
        );
    }
}
