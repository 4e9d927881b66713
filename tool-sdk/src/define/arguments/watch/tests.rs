use std::collections::{BTreeMap, HashMap};

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use super::{Watch, Watched};
use crate::define::arguments::decode;
use crate::define::ToolError;

/// Decodes `text` into `T` through the watch: whether it decoded, and whether the watch saw an
/// object go by unguarded.
fn watched<T: DeserializeOwned>(text: &str) -> (bool, bool) {
    let watch = Watch::new(false);
    let mut decoder = serde_json::Deserializer::from_str(text);
    let decoded = T::deserialize(Watched::new(&mut decoder, &watch)).is_ok();
    (decoded, watch.get())
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Traveller {
    name: String,
    age: u8,
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum Kind {
    Unit,
    Newtype(Traveller),
    Tuple(u8, Traveller),
    Struct { who: Traveller },
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Plain {
    travellers: Vec<Traveller>,
    lead: Option<Box<Traveller>>,
    pair: Option<(u8, Traveller)>,
    kinds: Vec<Kind>,
    #[serde(default)]
    note: Option<String>,
}

#[test]
fn structs_lists_options_and_tagged_enums_are_guarded_by_their_own_decoder() {
    let text = r#"{
        "travellers": [{"name": "Ana", "age": 34}, {"name": "Ben", "age": 36}],
        "lead": {"name": "Ana", "age": 34},
        "pair": [1, {"name": "Ben", "age": 36}],
        "kinds": ["Unit", {"Newtype": {"name": "A", "age": 1}},
                  {"Tuple": [2, {"name": "B", "age": 2}]},
                  {"Struct": {"who": {"name": "C", "age": 3}}}],
        "note": null
    }"#;
    assert_eq!(watched::<Plain>(text), (true, false));
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Flattened {
    a: u8,
    #[serde(flatten)]
    rest: Traveller,
}

#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum Untagged {
    Number(u8),
    Person(Traveller),
}

#[derive(Deserialize)]
#[serde(tag = "type")]
#[allow(dead_code)]
enum Internal {
    Person { name: String },
}

#[test]
fn every_object_a_repeat_could_pass_through_is_seen() {
    let person = r#"{"name": "Ana", "age": 34}"#;
    assert_eq!(watched::<HashMap<String, u8>>(r#"{"a": 1}"#), (true, true));
    assert_eq!(
        watched::<BTreeMap<String, Traveller>>(&format!(r#"{{"a": {person}}}"#)),
        (true, true)
    );
    assert_eq!(watched::<Value>(person), (true, true));
    assert_eq!(
        watched::<Vec<Option<Value>>>(&format!("[null, {person}]")),
        (true, true)
    );
    assert_eq!(
        watched::<Flattened>(r#"{"a": 1, "name": "Ana", "age": 34}"#),
        (true, true)
    );
    assert_eq!(watched::<Untagged>(person), (true, true));
    assert_eq!(
        watched::<Internal>(r#"{"type": "Person", "name": "Ana"}"#),
        (true, true)
    );
    // A member the struct does not name is decoded by nothing.
    assert_eq!(
        watched::<Traveller>(r#"{"name": "Ana", "age": 34, "extra": 1}"#),
        (true, true)
    );
    // A value inside a guarded struct is watched too.
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Holder {
        inner: Vec<Option<HashMap<String, u8>>>,
    }
    assert_eq!(watched::<Holder>(r#"{"inner": [null, {}]}"#), (true, true));
    assert_eq!(watched::<Holder>(r#"{"inner": [null]}"#), (true, false));
}

#[test]
fn a_repeat_through_each_unguarded_door_is_refused() {
    fn refused<T: DeserializeOwned>(text: &str) {
        match decode::<T>("t", text) {
            // serde refuses the repeat inside an untagged enum's buffer as no variant matching.
            Err(ToolError::InvalidArguments { problem, .. }) => {
                let expected = &problem.expected;
                assert!(
                    expected == "each field once" || expected.contains("untagged enum"),
                    "{text}: {problem:?}"
                );
            }
            Err(other) => panic!("{text}: expected a repeated key, got {other:?}"),
            Ok(_) => panic!("{text}: decoded"),
        }
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Wrapped<T> {
        value: T,
    }
    refused::<Wrapped<Flattened>>(r#"{"value": {"a": 1, "name": "Ana", "name": "Bo", "age": 3}}"#);
    refused::<Wrapped<Untagged>>(r#"{"value": {"name": "Ana", "name": "Bo", "age": 3}}"#);
    refused::<Wrapped<Internal>>(r#"{"value": {"type": "Person", "name": "A", "name": "B"}}"#);
    refused::<Wrapped<Traveller>>(
        r#"{"value": {"name": "Ana", "age": 3, "extra": {"k": 1, "k": 2}}}"#,
    );
    // Through a struct's own door, serde's derive refuses it in its words, which name the
    // field.
    match decode::<Wrapped<Traveller>>("t", r#"{"value": {"name": "A", "name": "B", "age": 1}}"#) {
        Err(ToolError::InvalidArguments { problem, .. }) => {
            assert_eq!(problem.pointer, "/value/name");
        }
        Err(other) => panic!("expected a repeated field, got {other:?}"),
        Ok(_) => panic!("decoded"),
    }
}
