//! A tool whose arguments were checked against dialects when it was compiled is held, at
//! registration, to the descriptions that check judged: `Described` derived beside a
//! hand-written `JsonSchema` describes the Rust fields, not that schema, and such a tool is
//! refused, naming the parameter and its type, rather than let through on a check of another
//! schema.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use tool_sdk::describe::{lower, Definition, Described, Dialect, Keyword, Shape};
use tool_sdk::register::RegistryError;
use tool_sdk::{tool, Tool, ToolRegistry};

/// Labels: a list of names in Rust, and a map of names to values in the schema written by
/// hand, which the derive cannot see.
#[derive(Debug, Deserialize, Described)]
struct Labels {
    names: Vec<String>,
}

impl JsonSchema for Labels {
    fn schema_name() -> Cow<'static, str> {
        "Labels".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "object", "additionalProperties": {"type": "string"}})
    }
}

/// Tags a photo.
#[tool(dialects(openai_strict))]
fn tag(photo: u64, labels: Labels) -> String {
    format!("{photo}: {}", labels.names.join(", "))
}

#[test]
fn a_description_that_is_not_the_schema_is_refused_at_registration() {
    // What the check judged (a list of names) fits strict mode; the schema the model is sent
    // (a map) does not.
    let parameters = &TagTool.definition().parameters;
    assert!(lower("tag", parameters, Dialect::OpenAiStrict).is_err());

    let mut registry = ToolRegistry::new();
    let Err(refused) = registry.register(TagTool) else {
        panic!("a tool checked against another schema than its own was registered");
    };
    let RegistryError::DescriptionMismatch {
        tool,
        parameter,
        rust_type,
        ..
    } = &refused
    else {
        panic!("{refused:?}");
    };
    assert_eq!(
        (tool.as_str(), parameter.as_str(), rust_type.as_str()),
        ("tag", "labels", "Labels")
    );
    let message = refused.to_string();
    assert!(message.contains("#[arg(unchecked)]"), "{message}");
    assert!(!registry.contains("tag"));
}

/// A point, described by hand as its hand-written schema says it.
#[derive(Debug, Deserialize)]
struct Point(f64, f64);

impl JsonSchema for Point {
    fn schema_name() -> Cow<'static, str> {
        "Point".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^-?[0-9.]+,-?[0-9.]+$"})
    }
}

/// As `subschema_for` gives it: a reference to its definition.
impl Described for Point {
    const SHAPE: Shape = Shape::Schema(&[(
        Keyword::Ref,
        Shape::Ref(&Definition {
            name: "Point",
            schema: Shape::Schema(&[
                (Keyword::Type, Shape::Str("string")),
                (Keyword::Pattern, Shape::Str("^-?[0-9.]+,-?[0-9.]+$")),
            ]),
        }),
    )]);
}

/// A place of the map, described as schemars describes it.
#[derive(Debug, Deserialize, JsonSchema, Described)]
struct Place {
    /// Its name.
    name: String,
    /// Where it is.
    at: Point,
    /// Places inside it.
    inside: Vec<Place>,
}

/// Marks a place.
#[tool(dialects(openai_strict, anthropic))]
fn mark(
    /// The place.
    place: Place,
    /// A note, if any.
    #[arg(default = "".to_owned())]
    note: String,
    near: Option<Point>,
) -> String {
    let near = near.map(|point| (point.0, point.1));
    format!(
        "{} at {} ({} inside) {note} {near:?}",
        place.name,
        place.at.0,
        place.inside.len()
    )
}

#[test]
fn descriptions_that_are_the_schema_register() {
    let mut registry = ToolRegistry::new();
    registry
        .register(MarkTool)
        .expect("described as its schema says");
}
