//! The arguments decoder `#[tool]` writes against serde's derive of the same struct, on
//! generated argument texts (known, unknown and repeated keys; right, wrong and `null`
//! values): both accept the same texts with the same values, and refuse the same ones with the
//! same classified error, message included.

use futures_util::FutureExt;
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tool_sdk::{tool, Tool, ToolContext, ToolError};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Single,
    Double,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Address {
    street: String,
    city: String,
    postal_code: Option<String>,
}

/// Books a room.
#[tool]
#[allow(clippy::too_many_arguments)]
fn book(
    /// Who stays.
    name: String,
    nights: u8,
    #[arg(default)] breakfast: bool,
    #[arg(default = 2)] guests: u32,
    note: Option<String>,
    #[arg(rename = "type")] kind: Kind,
    address: Address,
    tags: Vec<String>,
    r#ref: Option<i64>,
    city: &str,
) -> Value {
    json!([name, nights, breakfast, guests, note, kind, address, tags, r#ref, city])
}

/// What serde's derive makes of the same parameters.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SerdeBookArgs {
    name: String,
    nights: u8,
    #[serde(default)]
    breakfast: bool,
    #[serde(default = "two")]
    guests: u32,
    note: Option<String>,
    #[serde(rename = "type")]
    kind: Kind,
    address: Address,
    tags: Vec<String>,
    r#ref: Option<i64>,
    city: String,
}

fn two() -> u32 {
    2
}

/// The outcome through serde's derive: the same decoding path, then the same function.
fn by_serde(text: &str) -> Result<String, String> {
    tool_sdk::__private::decode::<SerdeBookArgs>("book", text)
        .map(|a| {
            book(
                a.name,
                a.nights,
                a.breakfast,
                a.guests,
                a.note,
                a.kind,
                a.address,
                a.tags,
                a.r#ref,
                &a.city,
            )
            .to_string()
        })
        .map_err(|error| format!("{error:?}: {error}"))
}

/// The outcome through the generated tool.
fn by_tool(text: &str) -> Result<String, String> {
    match BookTool.call(text, ToolContext::new()).now_or_never() {
        Some(result) => result
            .map(|output| output.into_content())
            .map_err(|error| format!("{error:?}: {error}")),
        None => Err("a synchronous tool returned a pending future".to_owned()),
    }
}

/// The error the generated tool gives for `text`.
fn refused_by_tool(text: &str) -> ToolError {
    match BookTool.call(text, ToolContext::new()).now_or_never() {
        Some(Err(error)) => error,
        Some(Ok(output)) => panic!("{text}: accepted, {}", output.content()),
        None => panic!("a synchronous tool returned a pending future"),
    }
}

const KEYS: &[&str] = &[
    "name",
    "nights",
    "breakfast",
    "guests",
    "note",
    "type",
    "kind",
    "address",
    "tags",
    "ref",
    "r#ref",
    "city",
    "Name",
    "",
];

const VALUES: &[&str] = &[
    r#""Ana""#,
    r#""single""#,
    r#""double""#,
    r#""triple""#,
    "3",
    "0",
    "-1",
    "300",
    "2.5",
    "1e3",
    "true",
    "null",
    "[]",
    r#"["a", "b"]"#,
    "[1]",
    "{}",
    r#"{"street": "Rua Augusta 1", "city": "Lisbon"}"#,
    r#"{"street": "Rua Augusta 1", "city": "Lisbon", "postal_code": null}"#,
    r#"{"street": 1, "city": "Lisbon"}"#,
    r#"{"street": "x", "city": "y", "floor": 2}"#,
];

/// A well-formed booking, so that generated texts are often right or nearly right.
fn complete() -> Vec<(&'static str, &'static str)> {
    vec![
        ("name", r#""Ana""#),
        ("nights", "3"),
        ("type", r#""double""#),
        (
            "address",
            r#"{"street": "Rua Augusta 1", "city": "Lisbon"}"#,
        ),
        ("tags", r#"["a", "b"]"#),
        ("city", r#""Lisbon""#),
    ]
}

/// An object text from a complete booking with some members left out, some added (any key,
/// any value, repeats included) and some values replaced.
fn arguments() -> impl Strategy<Value = String> {
    let edit = (0..KEYS.len(), 0..VALUES.len(), 0..3u8);
    (
        prop::collection::vec(any::<bool>(), 6),
        prop::collection::vec(edit, 0..5),
    )
        .prop_map(|(keep, edits)| {
            let mut members: Vec<(&str, &str)> = complete()
                .into_iter()
                .zip(keep)
                .filter(|(_, keep)| *keep)
                .map(|(member, _)| member)
                .collect();
            for (key, value, how) in edits {
                let member = (KEYS[key], VALUES[value]);
                match how {
                    0 => members.push(member),
                    1 => members.insert(0, member),
                    _ => match members.iter_mut().find(|(k, _)| *k == member.0) {
                        Some(existing) => existing.1 = member.1,
                        None => members.push(member),
                    },
                }
            }
            let body: Vec<String> = members
                .iter()
                .map(|(key, value)| format!("{key:?}: {value}"))
                .collect();
            format!("{{{}}}", body.join(", "))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn the_generated_decoder_agrees_with_serdes_derive(text in arguments()) {
        prop_assert_eq!(by_tool(&text), by_serde(&text), "arguments: {}", text);
    }
}

#[test]
fn a_complete_booking_decodes_with_its_defaults() {
    let text = r#"{"name": "Ana", "nights": 3, "type": "double",
        "address": {"street": "Rua Augusta 1", "city": "Lisbon"}, "tags": [], "city": "Lisbon"}"#;
    let expected = json!([
        "Ana",
        3,
        false,
        2,
        null,
        "double",
        {"street": "Rua Augusta 1", "city": "Lisbon", "postal_code": null},
        [],
        null,
        "Lisbon"
    ]);
    assert_eq!(by_tool(text), Ok(expected.to_string()));
    assert_eq!(by_tool(text), by_serde(text));
}

#[test]
fn unknown_repeated_and_missing_fields_are_classified_at_their_pointer() {
    let cases = [
        (
            r#"{"name": "Ana", "town": "Lisbon"}"#,
            "at `/town`: expected only the known fields (one of `name`, `nights`, `breakfast`, \
             `guests`, `note`, `type`, `address`, `tags`, `ref`, `city`), found unknown field `town`",
        ),
        (
            r#"{"name": "Ana", "name": "Ben"}"#,
            "at `/name`: expected each field once, found `name` twice",
        ),
        (
            r#"{"name": "Ana"}"#,
            "at `/nights`: expected the required field `nights`, found nothing",
        ),
    ];
    for (text, problem) in cases {
        let refused = refused_by_tool(text);
        assert!(
            matches!(refused, ToolError::InvalidArguments { .. }),
            "{refused:?}"
        );
        assert_eq!(
            refused.to_string(),
            format!("invalid arguments for tool `book`: {problem}")
        );
        assert_eq!(by_tool(text), by_serde(text));
    }
}
