//! The compile-time dialect check holds to the run-time one over every argument type of the
//! corpus and of the real family (the corpus's types inside options, vectors, maps, tuples,
//! a generic struct and a generic adjacently tagged enum): each type's `Described` shape,
//! written out, is the schema schemars writes (but for the values of defaults, which only
//! running a default function gives), and for each dialect `check_shape` gives `lower`'s verdict, pointer and rule.
//!
//! The same holds for the types of this stage's own tools (`dialects.rs`, `everyday_types.rs`)
//! and the standard types the examples' tools take.
//!
//! A type whose schema no `const` can follow (a flattened struct or enum, which schemars merges)
//! is left to registration: the test names each one, so the set cannot grow unnoticed.

use serde_json::{Map, Value};
use tool_sdk::describe::{check_shape, lower, Dialect, Keyword, Shape, ShapeVerdict};
use tool_sdk::{define_tool, Tool};
use tool_sdk_tests::corpus::corpus;
use tool_sdk_tests::shapes::real::family;

/// The parameters of a tool of one argument `value` of the type `shape` describes, as
/// `#[tool]` describes them (every argument required but an `Option`).
fn parameters(shape: Shape) -> &'static Shape {
    let value: &'static Shape = Box::leak(Box::new(shape));
    let optional = matches!(value, Shape::Nullable(_));
    let required: &'static [Shape] = if optional {
        &[]
    } else {
        &[Shape::Str("value")]
    };
    let properties: &'static [(&'static str, Shape)] = Box::leak(Box::new([("value", *value)]));
    let mut keywords = vec![
        (Keyword::Type, Shape::Str("object")),
        (Keyword::AdditionalProperties, Shape::Bool(false)),
        (Keyword::Properties, Shape::Names(properties)),
    ];
    if !optional {
        keywords.push((Keyword::Required, Shape::List(required)));
    }
    Box::leak(Box::new(Shape::Schema(Box::leak(
        keywords.into_boxed_slice(),
    ))))
}

/// `schema` without the values of its `default`s (what a default function returns is known
/// when it runs): a shape says only that a default is there.
fn without_defaults(schema: &Value) -> Value {
    match schema {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| {
                    let value = match key.as_str() {
                        "default" => Value::Null,
                        // Names, not keywords, key these: a property may be called `default`.
                        "properties" | "patternProperties" | "$defs" => match value {
                            Value::Object(named) => Value::Object(
                                named
                                    .iter()
                                    .map(|(name, schema)| (name.clone(), without_defaults(schema)))
                                    .collect::<Map<_, _>>(),
                            ),
                            other => other.clone(),
                        },
                        _ => without_defaults(value),
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_defaults).collect()),
        other => other.clone(),
    }
}

/// The tools (by the type they take) whose check is left to registration, and why.
const LEFT_TO_REGISTRATION: &[&str] = &[
    // schemars merges a flattened struct's or enum's schema into the outer one.
    "Shipment", "Delivery", "Record",
];

/// Compares the check with the walk for one type; what the check left to registration.
fn holds(rust: &str, tool: &dyn Tool, described: Shape, unchecked: &mut Vec<String>) {
    let definition = tool.definition();
    let parameters = parameters(described);
    let left = LEFT_TO_REGISTRATION.iter().any(|name| rust.contains(name));
    if !left {
        assert_eq!(
            without_defaults(&parameters.to_json_schema()),
            without_defaults(&definition.parameters),
            "the description of `{rust}` is not schemars' schema"
        );
    }
    for dialect in Dialect::ALL {
        let walked = lower("real", &definition.parameters, dialect);
        match (check_shape("real", parameters, dialect), walked) {
            (ShapeVerdict::Fits, Ok(_)) => {}
            (ShapeVerdict::Refused(checked), Err(walked)) => {
                assert_eq!(checked, walked, "`{rust}` in {dialect:?}");
            }
            (ShapeVerdict::Unchecked(why), _) => {
                assert!(
                    left,
                    "`{rust}` in {dialect:?} was left to registration: {why}"
                );
                unchecked.push(format!("{rust} ({dialect:?}): {why}"));
            }
            (checked, walked) => {
                panic!("`{rust}` in {dialect:?}: the check says {checked:?}, the walk {walked:?}")
            }
        }
    }
}

#[test]
fn the_check_agrees_with_registration_over_the_corpus() {
    let mut unchecked = Vec::new();
    let entries = corpus();
    for entry in &entries {
        holds(
            entry.rust,
            entry.tool.as_ref(),
            entry.described,
            &mut unchecked,
        );
    }
    assert!(unchecked.len() <= 3 * Dialect::ALL.len(), "{unchecked:#?}");
    eprintln!(
        "{} corpus types, {} verdicts, {} left to registration",
        entries.len(),
        entries.len() * Dialect::ALL.len(),
        unchecked.len()
    );
}

#[test]
fn the_check_agrees_with_registration_over_the_family() {
    let mut unchecked = Vec::new();
    let family = family();
    for real in &family {
        holds(
            &real.rust,
            real.tool.as_ref(),
            real.described,
            &mut unchecked,
        );
    }
    eprintln!(
        "{} family types, {} verdicts, {} left to registration",
        family.len(),
        family.len() * Dialect::ALL.len(),
        unchecked.len()
    );
}

/// A tool of one parameter `value` of each type, with the type's description.
macro_rules! tools_of {
    ($($t:ty),* $(,)?) => {
        vec![$((
            stringify!($t),
            std::sync::Arc::new(define_tool!(
                /// A tool of the stage.
                #[tool(name = "real")]
                |value: $t| -> String {
                    let _ = value;
                    String::new()
                }
            )) as std::sync::Arc<dyn Tool>,
            <$t as tool_sdk::describe::Described>::SHAPE,
        )),*]
    };
}

#[test]
fn the_check_agrees_with_registration_over_the_stages_own_types() {
    use super::dialects::{Cabin, Node, Passenger};
    use super::everyday_types::{Address, Delivery, List, Method, Order, Shipment, Speed, Tree};
    let tools = tools_of!(
        Passenger,
        Vec<Passenger>,
        Cabin,
        Option<Cabin>,
        Node,
        Address,
        Order,
        Method,
        Shipment,
        Speed,
        Delivery,
        Tree,
        List,
        // What the examples' tools take.
        String,
        u64,
        u16,
        u8,
        f64,
        i64,
        bool,
        Vec<String>,
        Option<u32>,
        // Foreign types schemars describes, which no derive can.
        std::net::IpAddr,
        std::net::Ipv4Addr,
        std::net::Ipv6Addr,
        std::net::SocketAddr,
        std::net::SocketAddrV4,
        std::net::SocketAddrV6,
        std::time::Duration,
        std::time::SystemTime,
        Option<std::time::Duration>,
        chrono::DateTime<chrono::Utc>,
        chrono::DateTime<chrono::FixedOffset>,
        chrono::NaiveDate,
        chrono::NaiveDateTime,
        chrono::NaiveTime,
        chrono::Weekday,
        chrono::TimeDelta,
        uuid::Uuid,
        url::Url,
    );
    let mut unchecked = Vec::new();
    for (rust, tool, described) in &tools {
        holds(rust, tool.as_ref(), *described, &mut unchecked);
    }
    eprintln!(
        "{} types of the stage, {} verdicts, {} left to registration",
        tools.len(),
        tools.len() * Dialect::ALL.len(),
        unchecked.len()
    );
}

/// A map with integer keys is a map: where a dialect cannot say a map, it is refused with the
/// words a map of string keys gets, at run time and when the crate is compiled; where it can
/// say a map but not a pattern its keys must match, it is refused too. Never a closed object
/// of no properties, which takes only `{}`.
#[test]
fn maps_with_integer_keys_are_refused_where_their_keys_cannot_be_said() {
    use std::collections::{BTreeMap, HashMap};
    let tools = tools_of!(
        BTreeMap<u32, u32>,
        HashMap<u32, String>,
        HashMap<i64, bool>,
        BTreeMap<String, u32>,
    );
    let (strings, integers) = tools.split_last().expect("tools");
    let mut unchecked = Vec::new();
    for (rust, tool, described) in &tools {
        holds(rust, tool.as_ref(), *described, &mut unchecked);
    }
    assert!(unchecked.is_empty(), "{unchecked:?}");
    for dialect in [
        Dialect::OpenAiStrict,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
    ] {
        let refused = lower("real", &strings.1.definition().parameters, dialect)
            .expect_err("a map of string keys");
        for (rust, tool, _) in integers {
            let error = lower("real", &tool.definition().parameters, dialect)
                .expect_err(&format!("`{rust}` in {dialect:?}"));
            assert_eq!(
                (error.pointer(), error.rule()),
                (refused.pointer(), refused.rule()),
                "`{rust}` in {dialect:?}"
            );
        }
    }
    for (rust, tool, _) in integers {
        let error = lower(
            "real",
            &tool.definition().parameters,
            Dialect::GeminiJsonSchema,
        )
        .expect_err(rust);
        assert_eq!(error.pointer(), "/properties/value", "`{rust}`");
        assert!(
            error.rule().contains("patternProperties"),
            "`{rust}`: {error}"
        );
        for dialect in [Dialect::OpenAi, Dialect::Anthropic, Dialect::Mcp] {
            lower("real", &tool.definition().parameters, dialect).expect(rust);
        }
    }
}

/// Who asks.
// Described, never built.
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct Requester {
    /// Their name.
    name: String,
}

/// A request: a flattened struct, which schemars merges and no `const` can follow.
// Described, never built.
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct Request {
    #[serde(flatten)]
    requester: Requester,
    subject: String,
}

/// An argument the check leaves to registration leaves only itself: the arguments after it
/// are still checked, and one a dialect refuses is refused with registration's words.
#[test]
fn an_argument_left_to_registration_leaves_the_others_checked() {
    use std::collections::HashMap;
    use tool_sdk::describe::Described;
    static PARAMETERS: Shape = Shape::Schema(&[
        (Keyword::Type, Shape::Str("object")),
        (
            Keyword::Properties,
            Shape::Names(&[
                ("request", <Request as Described>::SHAPE),
                ("labels", <HashMap<String, String> as Described>::SHAPE),
            ]),
        ),
    ]);
    let ShapeVerdict::Refused(error) = check_shape("file", &PARAMETERS, Dialect::OpenAiStrict)
    else {
        panic!("the map after the flattened struct is not checked");
    };
    assert_eq!(error.pointer(), "/properties/labels");
    assert!(error.rule().starts_with("a map"), "{error}");
    // Where the map fits, the verdict is still the flattened struct's: left to registration.
    assert!(matches!(
        check_shape("file", &PARAMETERS, Dialect::GeminiJsonSchema),
        ShapeVerdict::Unchecked(_)
    ));
}

/// A day, with schemars attributes the description cannot follow or does not know: the type
/// still compiles, and its check is left to registration.
// Described, never built.
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
#[schemars(extend("x-kind" = "calendar"))]
struct Day {
    #[schemars(extend("format" = "date"))]
    date: String,
    #[schemars(example = 1 + 1)]
    slot: String,
}

/// A field's valid schemars attributes the description cannot follow leave the type's check
/// to registration: never an error where schemars compiles.
// Described, never built.
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct Meeting {
    #[schemars(extend("format" = "date"), transform = |_: &mut schemars::Schema| {})]
    day: String,
    #[schemars(example = 3)]
    length: u8,
}

#[test]
fn attributes_the_description_cannot_follow_leave_the_check_to_registration() {
    use tool_sdk::describe::Described;
    for (rust, shape) in [
        ("Day", <Day as Described>::SHAPE),
        ("Meeting", <Meeting as Described>::SHAPE),
    ] {
        for dialect in Dialect::ALL {
            assert!(
                matches!(
                    check_shape("real", parameters(shape), dialect),
                    ShapeVerdict::Unchecked(_)
                ),
                "`{rust}` in {dialect:?}"
            );
        }
    }
}

/// A schema that breaks JSON Schema's own grammar (a hand-written description, or schema) is
/// refused in the same words when the crate is compiled and at registration.
#[test]
fn a_malformed_schema_is_refused_in_the_same_words_both_times() {
    const NOT_ARRAYS: &[Shape] = &[
        Shape::Schema(&[
            (Keyword::Type, Shape::Str("string")),
            (Keyword::Enum, Shape::Str("red")),
        ]),
        Shape::Nullable(&Shape::Schema(&[
            (Keyword::Type, Shape::Str("string")),
            (Keyword::Enum, Shape::Str("red")),
        ])),
        Shape::Schema(&[
            (Keyword::Type, Shape::Str("string")),
            (Keyword::Const, Shape::Str("red")),
            (Keyword::Enum, Shape::Str("red")),
        ]),
        Shape::Schema(&[(Keyword::AnyOf, Shape::Str("red"))]),
        Shape::Schema(&[(Keyword::OneOf, Shape::Int(1))]),
        Shape::Schema(&[(Keyword::AllOf, Shape::Bool(true))]),
        Shape::Schema(&[
            (Keyword::Type, Shape::Str("array")),
            (Keyword::PrefixItems, Shape::Str("red")),
        ]),
        Shape::Schema(&[
            (Keyword::Type, Shape::Str("object")),
            (Keyword::Properties, Shape::Str("red")),
        ]),
    ];
    for shape in NOT_ARRAYS {
        let parameters = parameters(*shape);
        let schema = parameters.to_json_schema();
        for dialect in Dialect::ALL {
            let walked = lower("real", &schema, dialect);
            match (check_shape("real", parameters, dialect), walked) {
                (ShapeVerdict::Refused(checked), Err(walked)) => {
                    assert_eq!(checked, walked, "{schema} in {dialect:?}");
                }
                (checked, walked) => {
                    panic!(
                        "{schema} in {dialect:?}: the check says {checked:?}, the walk {walked:?}"
                    )
                }
            }
        }
    }
}

/// A folder: holds files, which hold folders back.
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct Folder {
    name: String,
    files: Vec<File>,
}

/// A file, which may hold a folder (an archive).
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct File {
    name: String,
    unpacked: Option<Box<Folder>>,
}

/// A note that borrows: a described type with a lifetime.
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct Note<'a> {
    #[serde(borrow)]
    text: std::borrow::Cow<'a, str>,
    pages: Vec<std::borrow::Cow<'a, str>>,
}

/// A drive, which holds a folder, which holds files, which hold drives back: three types in
/// a ring.
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct Drive {
    label: String,
    root: Ring,
}

/// A folder of the ring.
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct Ring {
    disks: Vec<Disk>,
}

/// A disk image of the ring, which may hold a drive.
#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
struct Disk {
    mounted: Option<Drive>,
}

/// Types that hold each other (two, and three in a ring) are described and checked: each
/// description, written out, is schemars' schema, and each dialect's verdict is `lower`'s (a
/// reference back to a type being described is a reference, as within one recursive type).
#[test]
fn types_that_hold_each_other_are_checked_as_registration_checks_them() {
    use tool_sdk::describe::Described;
    let folder = define_tool!(
        /// Counts the files.
        #[tool(name = "count")]
        |value: Folder| -> usize {
            value.files.len()
        }
    );
    let drive = define_tool!(
        /// Labels a drive.
        #[tool(name = "label")]
        |value: Drive| -> String {
            value.label
        }
    );
    let file = define_tool!(
        /// Names a file.
        #[tool(name = "name")]
        |value: File| -> String {
            value.name
        }
    );
    let mut unchecked = Vec::new();
    holds(
        "Folder",
        &folder,
        <Folder as Described>::SHAPE,
        &mut unchecked,
    );
    holds("Drive", &drive, <Drive as Described>::SHAPE, &mut unchecked);
    holds("File", &file, <File as Described>::SHAPE, &mut unchecked);
    assert!(unchecked.is_empty(), "{unchecked:#?}");
    assert!(matches!(
        check_shape(
            "count",
            parameters(<Folder as Described>::SHAPE),
            Dialect::Gemini
        ),
        ShapeVerdict::Refused(_)
    ));
}

/// Two types that hold each other derive their descriptions, and a tool takes them, when no
/// dialect is chosen: the derive never breaks a crate that compiles without it (this file
/// would not compile otherwise).
#[test]
fn two_types_that_hold_each_other_compile_where_no_dialect_is_chosen() {
    let tool = define_tool!(
        /// Counts the files.
        #[tool(name = "count")]
        |root: Folder| -> usize {
            root.files.len()
        }
    );
    let parameters = &tool.definition().parameters;
    let _: Shape = <Note<'static> as tool_sdk::describe::Described>::SHAPE;
    lower("count", parameters, Dialect::OpenAiStrict).expect("recursion stays in strict mode");
    assert!(lower("count", parameters, Dialect::Gemini).is_err());
}

/// A chain of named types, each holding the next: `Link0` holds `Link1`, ... up to `Link19`.
macro_rules! chain {
    ($($link:ident => $next:ty,)*) => {
        $(
            /// A link of the chain.
            #[allow(dead_code)]
            #[derive(serde::Deserialize, schemars::JsonSchema, tool_sdk::describe::Described)]
            struct $link {
                next: $next,
            }
        )*
    };
}

chain! {
    Link0 => Link1, Link1 => Link2, Link2 => Link3, Link3 => Link4, Link4 => Link5,
    Link5 => Link6, Link6 => Link7, Link7 => Link8, Link8 => Link9, Link9 => Link10,
    Link10 => Link11, Link11 => Link12, Link12 => Link13, Link13 => Link14, Link14 => Link15,
    Link15 => Link16, Link16 => Link17, Link17 => Link18, Link18 => Link19, Link19 => String,
}

/// Named types nested deeper than descriptions unfold (sixteen in) are never refused where
/// registration takes them: the check gives registration's refusal where one comes first (a
/// dialect's depth limit), and otherwise leaves the verdict to registration.
#[test]
fn a_chain_longer_than_descriptions_unfold_is_left_to_registration() {
    use tool_sdk::describe::Described;
    let tool = define_tool!(
        /// Follows the chain.
        #[tool(name = "follow")]
        |value: Link0| -> String {
            value.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next
                .next.next.next.next
        }
    );
    let parameters = parameters(<Link0 as Described>::SHAPE);
    let mut left = 0;
    for dialect in Dialect::ALL {
        let walked = lower("follow", &tool.definition().parameters, dialect);
        match (check_shape("follow", parameters, dialect), walked) {
            (ShapeVerdict::Refused(checked), Err(walked)) => assert_eq!(checked, walked),
            (ShapeVerdict::Unchecked(why), Ok(_)) => {
                assert!(why.contains("deeper than"), "{why}");
                left += 1;
            }
            (checked, walked) => {
                panic!("{dialect:?}: the check says {checked:?}, the walk {walked:?}")
            }
        }
    }
    assert!(left > 0, "no dialect reached the end of the chain");
}
