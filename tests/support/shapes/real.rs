//! Real schemars output: argument types composed by a macro from leaf types of the corpus
//! (structs, enums in each serde representation, a flattened enum and struct, bounds, a tuple,
//! a map) inside wrappers (`Option`, `Vec`, `BTreeMap<String, _>`, a tuple beside `u8`, a
//! struct of defaulted, renamed and boxed fields, an adjacently tagged enum), each offered as a
//! tool of one parameter `value` whose schema schemars derives, with a value of the type made
//! by a constructor ([`Sample`]) and written by serde.

// The wrappers are argument types as users write them: a field or variant without a doc
// comment is part of the family (its schema has no description), and none needs `Debug`.
#![allow(missing_docs, missing_debug_implementations)]

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tool_sdk::describe::{Described, Shape};
use tool_sdk::{define_tool, Tool};

use crate::corpus::{
    Address, Adjacent, Bounded, Colour, External, Internal, Meta, Method, Record, Shipment,
    Untagged,
};

/// A value of a type, made by its constructors.
pub trait Sample {
    /// The value.
    fn sample() -> Self;
}

/// A struct of wrapped fields: defaulted, renamed, boxed.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(rename_all = "camelCase", bound(deserialize = "T: Deserialize<'de>"))]
pub struct Holder<T> {
    /// One, if any.
    #[serde(default)]
    pub maybe_one: Option<T>,
    /// Several.
    #[serde(rename = "several")]
    pub many: Vec<T>,
    pub boxed: Box<T>,
    #[serde(default = "one")]
    pub copies: u8,
}

fn one() -> u8 {
    1
}

/// One, several or none, adjacently tagged.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(tag = "kind", content = "of", rename_all = "snake_case")]
pub enum Choice<T> {
    /// One value.
    One(T),
    Several(Vec<T>),
    Nothing,
}

/// A type of the family: the Rust type, the tool and arguments it decodes.
pub struct Real {
    /// The Rust type, as written.
    pub rust: String,
    /// The tool, of one parameter `value` of the type.
    pub tool: Arc<dyn Tool>,
    /// Arguments the tool decodes.
    pub sample: Value,
    /// The type's compile-time description.
    pub described: Shape,
}

macro_rules! real {
    ($t:ty) => {
        Real {
            rust: stringify!($t).replace(' ', ""),
            tool: Arc::new(define_tool!(
                /// A tool of the family.
                #[tool(name = "real")]
                |value: $t| -> String {
                    let _ = value;
                    String::new()
                }
            )),
            sample: json!({
                "value": serde_json::to_value(<$t as Sample>::sample()).expect("a sample")
            }),
            described: <$t as Described>::SHAPE,
        }
    };
}

/// For each leaf type, the types that wrap it.
macro_rules! wrapped {
    ($($leaf:ty),* $(,)?) => {
        vec![$(
            real!(Option<$leaf>),
            real!(Vec<$leaf>),
            real!(BTreeMap<String, $leaf>),
            real!(($leaf, u8)),
            real!(Holder<$leaf>),
            real!(Choice<$leaf>),
        )*]
    };
}

/// Every type of the family.
pub fn family() -> Vec<Real> {
    wrapped!(
        Address,
        Colour,
        External,
        Internal,
        Adjacent,
        Untagged,
        Shipment,
        Record,
        Bounded,
        (f64, f64),
        BTreeMap<String, bool>,
    )
}

impl Sample for bool {
    fn sample() -> Self {
        true
    }
}

impl Sample for (f64, f64) {
    fn sample() -> Self {
        (1.5, -2.0)
    }
}

impl<T: Sample> Sample for Option<T> {
    fn sample() -> Self {
        Some(T::sample())
    }
}

impl<T: Sample> Sample for Vec<T> {
    fn sample() -> Self {
        vec![T::sample(), T::sample()]
    }
}

impl<T: Sample> Sample for BTreeMap<String, T> {
    fn sample() -> Self {
        BTreeMap::from([("key".to_owned(), T::sample())])
    }
}

impl<T: Sample> Sample for (T, u8) {
    fn sample() -> Self {
        (T::sample(), 7)
    }
}

impl<T: Sample> Sample for Holder<T> {
    fn sample() -> Self {
        Holder {
            maybe_one: None,
            many: vec![T::sample()],
            boxed: Box::new(T::sample()),
            copies: 2,
        }
    }
}

impl<T: Sample> Sample for Choice<T> {
    fn sample() -> Self {
        Choice::Several(vec![T::sample()])
    }
}

impl Sample for Address {
    fn sample() -> Self {
        Address {
            street: "1 Main".into(),
            city: "Oslo".into(),
            postcode: None,
        }
    }
}

impl Sample for Colour {
    fn sample() -> Self {
        Colour::Green
    }
}

impl Sample for External {
    fn sample() -> Self {
        External::Circle { radius: 2.0 }
    }
}

impl Sample for Internal {
    fn sample() -> Self {
        Internal::Rectangle {
            width: 1.0,
            height: 2.0,
        }
    }
}

impl Sample for Adjacent {
    fn sample() -> Self {
        Adjacent::Count(3)
    }
}

impl Sample for Untagged {
    fn sample() -> Self {
        Untagged::Word("word".into())
    }
}

impl Sample for Shipment {
    fn sample() -> Self {
        Shipment {
            reference: "r".into(),
            method: Method::Courier {
                company: "DHL".into(),
            },
        }
    }
}

impl Sample for Record {
    fn sample() -> Self {
        Record {
            id: "1".into(),
            meta: Meta {
                author: "a".into(),
                version: 2,
            },
        }
    }
}

impl Sample for Bounded {
    fn sample() -> Self {
        Bounded {
            stars: 5,
            nickname: "n".into(),
            slug: "abc".into(),
            tags: vec!["t".into()],
        }
    }
}
