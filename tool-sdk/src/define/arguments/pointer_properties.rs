//! The pointer read from serde_json's position against serde_path_to_error's path, which finds
//! it by decoding again through a path-tracking deserializer, on generated arguments that are
//! mostly right and wrong in one place or several.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::classify::{pointer_of, strip_position};
use super::escape_pointer_token;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Top {
    a: i64,
    b: Option<String>,
    #[serde(default)]
    c: Vec<Inner>,
    d: Kind,
    e: Option<Inner>,
    m: BTreeMap<String, u8>,
    t: (u8, bool),
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Inner {
    x: u8,
    y: Vec<Vec<bool>>,
    #[serde(rename = "z/w~")]
    z: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
enum Kind {
    Alpha,
    Beta { n: u8 },
    Gamma(u8),
}

/// Any JSON value, small.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "[a-z\"\\\\/~ é]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..3)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Keys of the types above, and others.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_owned()),
        Just("x".to_owned()),
        Just("n".to_owned()),
        Just("z/w~".to_owned()),
        Just("Beta".to_owned()),
        "[a-z\"é~/]{1,4}",
    ]
}

/// Mostly `right`, sometimes anything.
fn mostly(right: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
    prop_oneof![6 => right, 1 => any_json()].boxed()
}

/// An object of `fields`, each sometimes left out, sometimes with an unknown member added.
fn object(fields: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
    let members: Vec<_> = fields
        .into_iter()
        .map(|(name, value)| {
            (prop::bool::weighted(0.92), value).prop_map(move |(kept, value)| (name, kept, value))
        })
        .collect();
    (members, prop::option::weighted(0.1, (key(), any_json())))
        .prop_map(|(members, extra)| {
            let mut object = Map::new();
            for (name, kept, value) in members {
                if kept {
                    object.insert(name.to_owned(), value);
                }
            }
            if let Some((key, value)) = extra {
                object.insert(key, value);
            }
            Value::Object(object)
        })
        .boxed()
}

fn inner() -> BoxedStrategy<Value> {
    object(vec![
        ("x", mostly(any::<u8>().prop_map(|n| json!(n)))),
        (
            "y",
            mostly(
                prop::collection::vec(
                    prop::collection::vec(mostly(any::<bool>().prop_map(Value::Bool)), 0..3),
                    0..3,
                )
                .prop_map(|rows| json!(rows)),
            ),
        ),
        (
            "z/w~",
            mostly(prop::option::of(-10.0f64..10.0).prop_map(|z| json!(z))),
        ),
    ])
}

fn top() -> BoxedStrategy<Value> {
    let kind = prop_oneof![
        Just(json!("Alpha")),
        any::<u8>().prop_map(|n| json!({ "Beta": { "n": n } })),
        any::<u8>().prop_map(|n| json!({ "Gamma": n })),
        Just(json!("Delta")),
    ];
    object(vec![
        ("a", mostly(any::<i64>().prop_map(|n| json!(n)))),
        (
            "b",
            mostly(prop::option::of("[a-z]{0,4}").prop_map(|b| json!(b))),
        ),
        (
            "c",
            mostly(prop::collection::vec(mostly(inner()), 0..3).prop_map(Value::Array)),
        ),
        ("d", mostly(kind)),
        ("e", mostly(prop_oneof![Just(Value::Null), inner()])),
        (
            "m",
            mostly(
                prop::collection::btree_map(
                    "[a-z/~]{1,3}",
                    mostly(any::<u8>().prop_map(|n| json!(n))),
                    0..3,
                )
                .prop_map(|m| json!(m)),
            ),
        ),
        (
            "t",
            mostly((any::<u8>(), any::<bool>()).prop_map(|(n, b)| json!([n, b]))),
        ),
    ])
}

/// serde_path_to_error's path as a JSON pointer; `None` when a segment is unknown to it.
fn reference_pointer(text: &str) -> Option<String> {
    use serde_path_to_error::Segment;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let error = serde_path_to_error::deserialize::<_, Top>(&mut deserializer).err()?;
    let mut pointer = String::new();
    for segment in error.path().iter() {
        match segment {
            Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                pointer.push('/');
                pointer.push_str(&escape_pointer_token(key));
            }
            Segment::Unknown => return None,
        }
    }
    Some(pointer)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn the_pointer_from_the_position_is_the_path_serde_found(value in top(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let Err(error) = serde_json::from_str::<Top>(&text) else {
            return Ok(());
        };
        let Some(expected) = reference_pointer(&text) else {
            return Ok(());
        };
        let pointer = pointer_of(&text, &error, &strip_position(&error));
        prop_assert_eq!(pointer, expected, "{} in {}", error, text);
    }
}
