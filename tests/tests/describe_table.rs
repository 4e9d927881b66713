//! The table of the `describe` guide (`tool-sdk/src/describe/dialects.md`): what each dialect
//! does with each type of the corpus. The table is built here from the corpus and compared with
//! the guide's, so the guide cannot drift from the lowering: a difference fails, printing the
//! table to put there (`TOOL_SDK_WRITE_DIALECT_TABLE=1` writes it).

use std::collections::BTreeSet;

use serde_json::Value;
use tool_sdk::describe::{lower, Dialect};
use tool_sdk_tests::corpus::corpus;

const GUIDE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tool-sdk/src/describe/dialects.md"
);
const BEGIN: &str = "<!-- table: built by tests/tests/describe_table.rs -->";
const END: &str = "<!-- end of table -->";

/// Every keyword used anywhere in `schema` (property names and definition names left out).
fn keywords(schema: &Value, into: &mut BTreeSet<String>) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object {
                into.insert(key.clone());
                match key.as_str() {
                    "properties" | "$defs" | "definitions" => {
                        for child in value.as_object().into_iter().flatten().map(|(_, v)| v) {
                            keywords(child, into);
                        }
                    }
                    "enum" | "const" | "required" | "default" | "examples" => {}
                    _ => keywords(value, into),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| keywords(item, into)),
        _ => {}
    }
}

/// What `dialect` does with `canonical`: kept, rewritten (which keywords it adds and drops),
/// or refused (the rule).
fn verdict(canonical: &Value, dialect: Dialect) -> String {
    match lower("t", canonical, dialect) {
        Ok(lowered) if lowered == *canonical => "kept".into(),
        Ok(lowered) => {
            let (mut before, mut after) = (BTreeSet::new(), BTreeSet::new());
            keywords(canonical, &mut before);
            keywords(&lowered, &mut after);
            let added = after.difference(&before).map(|k| format!("+`{k}`"));
            let dropped = before.difference(&after).map(|k| format!("−`{k}`"));
            let changes: Vec<String> = added.chain(dropped).collect();
            if changes.is_empty() {
                "rewritten (same keywords)".into()
            } else {
                format!("rewritten: {}", changes.join(" "))
            }
        }
        Err(error) => format!("**refused**: {}", error.rule),
    }
}

fn table() -> String {
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
    for entry in corpus() {
        let canonical = entry.tool.definition().parameters.clone();
        let cells: Vec<String> = dialects
            .iter()
            .map(|dialect| verdict(&canonical, *dialect).replace('|', "\\|"))
            .collect();
        table.push_str(&format!(
            "| {} | `{}` | {} |\n",
            entry.shape,
            entry.rust.replace(' ', ""),
            cells.join(" | ")
        ));
    }
    table
}

#[test]
fn the_guides_table_is_what_the_lowering_does() {
    let guide = std::fs::read_to_string(GUIDE).expect("the describe guide");
    let start = guide.find(BEGIN).expect("the table's start marker") + BEGIN.len();
    let end = guide.find(END).expect("the table's end marker");
    let built = table();
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
