//! A schema's refusal of arguments in the words the registry uses for a typed tool's
//! ("expected a string", "expected the required field `item`, found nothing"),
//! rather than the validator's sentence about the value ("5 is not of type \"string\""),
//! which would repeat what was found.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError};
use serde_json::Value;

use crate::define::arguments::{json_type, with_article};
use crate::define::ArgumentProblem;

/// Where, what was expected and what was found, for the first error of a validation.
pub(super) fn problem(error: &ValidationError<'_>) -> ArgumentProblem {
    let pointer = error.instance_path().to_string();
    if let ValidationErrorKind::Required { property } = error.kind() {
        // As serde says it; the pointer stays at the object the field is missing from.
        return ArgumentProblem {
            pointer,
            expected: format!("the required field `{}`", name(property)),
            found: Some("nothing".to_owned()),
        };
    }
    ArgumentProblem {
        pointer,
        expected: expected(error),
        found: Some(describe(error.instance())),
    }
}

/// What `error`'s keyword expected.
fn expected(error: &ValidationError<'_>) -> String {
    match error.kind() {
        ValidationErrorKind::Type {
            kind: TypeKind::Single(kind),
        } => a(*kind).to_owned(),
        ValidationErrorKind::Type {
            kind: TypeKind::Multiple(kinds),
        } => kinds.iter().map(a).collect::<Vec<_>>().join(" or "),
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let fields: Vec<String> = unexpected
                .iter()
                .map(|field| format!("`{field}`"))
                .collect();
            format!("only the schema's fields, not {}", fields.join(", "))
        }
        ValidationErrorKind::Enum { options } => format!("one of {options}"),
        ValidationErrorKind::Constant { expected_value } => expected_value.to_string(),
        ValidationErrorKind::Minimum { limit } => format!("a number of at least {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("a number of at most {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("a number above {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("a number below {limit}"),
        ValidationErrorKind::MinLength { limit } => {
            format!("a string of at least {limit} characters")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("a string of at most {limit} characters")
        }
        ValidationErrorKind::MinItems { limit } => format!("at least {limit} items"),
        ValidationErrorKind::MaxItems { limit } => format!("at most {limit} items"),
        ValidationErrorKind::Pattern { pattern } => format!("a string matching `{pattern}`"),
        // The rarer keywords: the validator's own words.
        _ => error.to_string(),
    }
}

fn a(kind: JsonType) -> &'static str {
    match kind {
        JsonType::Array => "an array",
        JsonType::Boolean => "a boolean",
        JsonType::Integer => "an integer",
        JsonType::Null => "null",
        JsonType::Number => "a number",
        JsonType::Object => "an object",
        JsonType::String => "a string",
    }
}

fn name(property: &Value) -> String {
    property
        .as_str()
        .map_or_else(|| property.to_string(), str::to_owned)
}

/// A short description of the offending value: its type, and the value itself when short.
fn describe(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= 40 {
        format!("{} {text}", with_article(json_type(value)))
    } else {
        with_article(json_type(value))
    }
}
