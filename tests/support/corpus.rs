//! A corpus of argument types as real tools use them, each offered as a tool of one parameter
//! `value`, with an argument the tool decodes: primitives and their bounds, options, vectors,
//! nesting from 1 to 12 levels, a struct of 105 fields, maps, `serde_json::Value`, tuples and
//! fixed arrays, enums in every serde representation, `flatten`, `rename`, `default`, `skip`,
//! `deny_unknown_fields`, recursion, schemars' `range`, `length` and `regex` (plain, and with
//! lookaround, backreferences and word boundaries), and hand-written `JsonSchema` impls (one an
//! `allOf`).

// The types are argument types as users write them: a field without a doc comment is part of
// the corpus (its schema has no description), and none needs `Debug`.
#![allow(missing_docs, missing_debug_implementations)]

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tool_sdk::describe::{Definition, Described, Keyword, Shape};
use tool_sdk::{define_tool, Tool};

/// One argument type of the corpus.
pub struct Entry {
    /// The tool's name, after the type.
    pub name: &'static str,
    /// Which everyday shape it is, for tables.
    pub shape: &'static str,
    /// The Rust type, as written.
    pub rust: &'static str,
    /// The tool, of one parameter `value` of the type.
    pub tool: Arc<dyn Tool>,
    /// Arguments the tool decodes.
    pub sample: Value,
    /// The type's compile-time description.
    pub described: Shape,
}

macro_rules! entry {
    ($name:literal, $shape:literal, $t:ty, $($sample:tt)+) => {
        Entry {
            name: $name,
            shape: $shape,
            rust: stringify!($t),
            tool: Arc::new(define_tool!(
                /// A tool of the corpus.
                #[tool(name = $name)]
                |value: $t| -> String {
                    let _ = value;
                    String::new()
                }
            )),
            sample: json!({ "value": $($sample)+ }),
            described: <$t as Described>::SHAPE,
        }
    };
}

/// A postal address.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Address {
    /// Street and number.
    pub street: String,
    pub city: String,
    pub postcode: Option<String>,
}

/// An order.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Order {
    /// Where to deliver.
    pub shipping_address: Address,
    /// Where the bill goes, if elsewhere.
    pub billing_address: Option<Address>,
    pub quantity: u32,
}

/// A document with any content.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Document {
    pub title: String,
    /// Any JSON.
    pub body: Value,
}

/// A colour, as a word.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    /// Like blood.
    Red,
    Green,
    Blue,
}

/// A shape, externally tagged.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub enum External {
    Circle { radius: f64 },
    Square(f64),
    Point,
}

/// A shape, internally tagged.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Internal {
    Circle { radius: f64 },
    Rectangle { width: f64, height: f64 },
}

/// A message, adjacently tagged.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum Adjacent {
    Text(String),
    Count(u32),
}

/// A number or a word, untagged.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(untagged)]
pub enum Untagged {
    Number(i64),
    Word(String),
}

/// How to ship.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Method {
    /// By post.
    Post { stamps: u32 },
    /// By courier.
    Courier { company: String },
}

/// A shipment: fields beside a flattened enum.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Shipment {
    pub reference: String,
    #[serde(flatten)]
    pub method: Method,
}

/// How fast to ship.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(tag = "speed", rename_all = "snake_case")]
pub enum Speed {
    /// In days.
    Slow { days: u32 },
    /// In hours.
    Fast { hours: u32 },
}

/// A delivery: fields beside two flattened enums (schemars says them with `allOf`).
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Delivery {
    pub reference: String,
    #[serde(flatten)]
    pub method: Method,
    #[serde(flatten)]
    pub speed: Speed,
}

/// Metadata flattened into a record.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Meta {
    pub author: String,
    pub version: u32,
}

/// A record with flattened metadata.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Record {
    pub id: String,
    #[serde(flatten)]
    pub meta: Meta,
}

/// A renamed struct.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(rename_all = "camelCase")]
pub struct Renamed {
    pub first_name: String,
    #[serde(rename = "family")]
    pub last_name: String,
}

/// Settings with defaults and a skipped field.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Settings {
    #[serde(default)]
    pub verbose: bool,
    #[serde(default = "three")]
    pub retries: u32,
    #[serde(skip)]
    pub cache: Vec<u8>,
}

fn three() -> u32 {
    3
}

/// A strict struct.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(deny_unknown_fields)]
pub struct Strict {
    pub name: String,
}

/// A tree.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Tree {
    pub label: String,
    pub children: Vec<Tree>,
}

/// A linked list.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct List {
    pub value: i64,
    pub next: Option<Box<List>>,
}

/// Bounded by schemars attributes.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Bounded {
    #[schemars(range(min = 1, max = 10))]
    pub stars: u32,
    #[schemars(length(min = 1, max = 20))]
    pub nickname: String,
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    pub slug: String,
    #[schemars(length(min = 1, max = 3))]
    pub tags: Vec<String>,
}

/// Patterns a plain regular expression engine does not run.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Patterned {
    /// Eight letters or digits, one a digit (a lookahead).
    #[schemars(regex(pattern = r"^(?=.*\d)[a-z\d]{8,}$"))]
    pub code: String,
    /// A word, a dash, the word again (a backreference).
    #[schemars(regex(pattern = r"^(\w+)-\1$"))]
    pub twice: String,
    /// A whole word (word boundaries).
    #[schemars(regex(pattern = r"\bcat\b"))]
    pub word: String,
}

/// A code that must meet two patterns, with a hand-written schema (`allOf` of two strings).
#[derive(Deserialize, Serialize)]
pub struct Code(pub String);

impl JsonSchema for Code {
    fn schema_name() -> Cow<'static, str> {
        "Code".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A letter first, a digit last.",
            "allOf": [
                { "type": "string", "pattern": "^[a-z]" },
                { "type": "string", "pattern": "[0-9]$" }
            ]
        })
    }
}

/// Its hand-written schema, described.
impl Described for Code {
    const SHAPE: Shape = Shape::Schema(&[(
        Keyword::Ref,
        Shape::Ref(&Definition {
            name: "Code",
            schema: Shape::Schema(&[
                (
                    Keyword::Description,
                    Shape::Str("A letter first, a digit last."),
                ),
                (
                    Keyword::AllOf,
                    Shape::List(&[
                        Shape::Schema(&[
                            (Keyword::Type, Shape::Str("string")),
                            (Keyword::Pattern, Shape::Str("^[a-z]")),
                        ]),
                        Shape::Schema(&[
                            (Keyword::Type, Shape::Str("string")),
                            (Keyword::Pattern, Shape::Str("[0-9]$")),
                        ]),
                    ]),
                ),
            ]),
        }),
    )]);
}

/// An amount of money as text, with a hand-written schema.
#[derive(Deserialize, Serialize)]
pub struct Money(pub String);

impl JsonSchema for Money {
    fn schema_name() -> Cow<'static, str> {
        "Money".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": r"^\d+\.\d{2} [A-Z]{3}$",
            "description": "An amount and a currency, as `12.50 EUR`."
        })
    }
}

/// Its hand-written schema, described.
impl Described for Money {
    const SHAPE: Shape = Shape::Schema(&[(
        Keyword::Ref,
        Shape::Ref(&Definition {
            name: "Money",
            schema: Shape::Schema(&[
                (Keyword::Type, Shape::Str("string")),
                (Keyword::Pattern, Shape::Str(r"^\d+\.\d{2} [A-Z]{3}$")),
                (
                    Keyword::Description,
                    Shape::Str("An amount and a currency, as `12.50 EUR`."),
                ),
            ]),
        }),
    )]);
}

/// A type whose hand-written schema points nowhere.
#[derive(Deserialize, Serialize)]
pub struct Dangling(pub String);

impl JsonSchema for Dangling {
    fn schema_name() -> Cow<'static, str> {
        "Dangling".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "$ref": "#/$defs/Nowhere" })
    }
}

/// Its hand-written schema, described: a reference to a definition that is not there.
impl Described for Dangling {
    const SHAPE: Shape = Shape::Schema(&[(
        Keyword::Ref,
        Shape::Ref(&Definition {
            name: "Dangling",
            schema: Shape::Schema(&[(Keyword::Ref, Shape::Recursive("Nowhere"))]),
        }),
    )]);
}

/// A struct of 105 fields.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub struct Wide {
    f0: u8,
    f1: u8,
    f2: u8,
    f3: u8,
    f4: u8,
    f5: u8,
    f6: u8,
    f7: u8,
    f8: u8,
    f9: u8,
    f10: u8,
    f11: u8,
    f12: u8,
    f13: u8,
    f14: u8,
    f15: u8,
    f16: u8,
    f17: u8,
    f18: u8,
    f19: u8,
    f20: u8,
    f21: u8,
    f22: u8,
    f23: u8,
    f24: u8,
    f25: u8,
    f26: u8,
    f27: u8,
    f28: u8,
    f29: u8,
    f30: u8,
    f31: u8,
    f32: u8,
    f33: u8,
    f34: u8,
    f35: u8,
    f36: u8,
    f37: u8,
    f38: u8,
    f39: u8,
    f40: u8,
    f41: u8,
    f42: u8,
    f43: u8,
    f44: u8,
    f45: u8,
    f46: u8,
    f47: u8,
    f48: u8,
    f49: u8,
    f50: u8,
    f51: u8,
    f52: u8,
    f53: u8,
    f54: u8,
    f55: u8,
    f56: u8,
    f57: u8,
    f58: u8,
    f59: u8,
    f60: u8,
    f61: u8,
    f62: u8,
    f63: u8,
    f64: u8,
    f65: u8,
    f66: u8,
    f67: u8,
    f68: u8,
    f69: u8,
    f70: u8,
    f71: u8,
    f72: u8,
    f73: u8,
    f74: u8,
    f75: u8,
    f76: u8,
    f77: u8,
    f78: u8,
    f79: u8,
    f80: u8,
    f81: u8,
    f82: u8,
    f83: u8,
    f84: u8,
    f85: u8,
    f86: u8,
    f87: u8,
    f88: u8,
    f89: u8,
    f90: u8,
    f91: u8,
    f92: u8,
    f93: u8,
    f94: u8,
    f95: u8,
    f96: u8,
    f97: u8,
    f98: u8,
    f99: u8,
    f100: u8,
    f101: u8,
    f102: u8,
    f103: u8,
    f104: u8,
}

macro_rules! nest {
    ($leaf:ident; $($outer:ident > $inner:ident),*) => {
        /// The innermost level.
        #[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
        pub struct $leaf {
            pub value: String,
        }
        $(
            /// One level.
            #[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
            pub struct $outer {
                pub inner: $inner,
            }
        )*
    };
}

nest!(D12; D11 > D12, D10 > D11, D9 > D10, D8 > D9, D7 > D8, D6 > D7, D5 > D6, D4 > D5,
      D3 > D4, D2 > D3, D1 > D2);

/// `levels` levels of `{"inner": ...}` around `{"value": "v"}`.
fn nested(levels: usize) -> Value {
    (1..levels).fold(json!({"value": "v"}), |inner, _| json!({ "inner": inner }))
}

/// A value of [`Wide`].
fn wide() -> Value {
    Value::Object((0..105).map(|i| (format!("f{i}"), json!(i))).collect())
}

/// Every argument type of the corpus.
pub fn corpus() -> Vec<Entry> {
    vec![
        entry!("u8", "primitive", u8, 200),
        entry!("i8", "primitive", i8, -5),
        entry!("i64", "primitive", i64, -9_000_000_000_i64),
        entry!("u64", "primitive", u64, 18_000_000_000_u64),
        entry!("f32", "primitive", f32, 1.5),
        entry!("f64", "primitive", f64, -2.25),
        entry!("bool", "primitive", bool, true),
        entry!("char", "primitive", char, "x"),
        entry!("string", "primitive", String, "text"),
        entry!("option", "option", Option<String>, null),
        entry!("option_some", "option", Option<u32>, 4),
        entry!("vec", "vector", Vec<String>, ["a", "b"]),
        entry!("vec_of_vec", "vector", Vec<Vec<i32>>, [[1, 2], [3]]),
        entry!("set", "vector", HashSet<String>, ["a"]),
        entry!("fixed_array", "tuple", [f64; 3], [1.0, 2.0, 3.0]),
        entry!("pair", "tuple", (f64, f64), [1.0, 2.0]),
        entry!("pairs", "tuple", Vec<(f64, f64)>, [[1.0, 2.0]]),
        entry!(
            "mixed_tuple",
            "tuple of different types",
            (String, f64, f64),
            ["Oslo", 59.9, 10.7]
        ),
        entry!("map", "map", HashMap<String, bool>, {"a": true}),
        entry!("map_of_structs", "map", BTreeMap<String, Address>, {"home": {"street": "1 Main", "city": "Oslo", "postcode": null}}),
        entry!("value", "serde_json::Value", Value, {"any": [1, "x"]}),
        entry!("documented_value", "serde_json::Value", Document, {"title": "t", "body": [1]}),
        entry!("struct", "struct", Address, {"street": "1 Main", "city": "Oslo", "postcode": "0150"}),
        entry!("documented_struct_field", "nested struct", Order, {"shipping_address": {"street": "1 Main", "city": "Oslo", "postcode": null}, "billing_address": null, "quantity": 2}),
        entry!("option_vec_struct", "nested struct", Option<Vec<Address>>, [{"street": "s", "city": "c", "postcode": null}]),
        entry!("unit_enum", "enum (unit variants)", Colour, "red"),
        entry!("external_enum", "enum (externally tagged)", External, {"Circle": {"radius": 1.0}}),
        entry!("internal_enum", "enum (internally tagged)", Internal, {"kind": "rectangle", "width": 1.0, "height": 2.0}),
        entry!("adjacent_enum", "enum (adjacently tagged)", Adjacent, {"type": "count", "data": 3}),
        entry!("untagged_enum", "enum (untagged)", Untagged, "word"),
        entry!("flatten_enum", "flattened enum", Shipment, {"reference": "r", "method": "post", "stamps": 2}),
        entry!("flatten_two_enums", "flattened enums (two)", Delivery, {"reference": "r", "method": "courier", "company": "DHL", "speed": "slow", "days": 3}),
        entry!("flatten_struct", "flattened struct", Record, {"id": "1", "author": "a", "version": 2}),
        entry!("renamed", "rename", Renamed, {"firstName": "Ada", "family": "Lovelace"}),
        entry!("defaults_and_skip", "default and skip", Settings, {"verbose": true}),
        entry!("deny_unknown", "deny_unknown_fields", Strict, {"name": "n"}),
        entry!("tree", "recursive", Tree, {"label": "a", "children": [{"label": "b", "children": []}]}),
        entry!("list", "recursive", List, {"value": 1, "next": {"value": 2, "next": null}}),
        entry!("bounded", "schemars range, length, regex", Bounded, {"stars": 5, "nickname": "n", "slug": "abc", "tags": ["t"]}),
        entry!("patterned", "schemars regex beyond plain", Patterned, {"code": "abc12345", "twice": "ab-ab", "word": "cat"}),
        entry!(
            "all_of_strings",
            "hand-written JsonSchema (allOf)",
            Code,
            "b7"
        ),
        entry!(
            "hand_written",
            "hand-written JsonSchema",
            Money,
            "12.50 EUR"
        ),
        entry!("dangling", "hand-written JsonSchema", Dangling, "x"),
        entry!("nested_5", "nesting", D8, nested(5)),
        entry!("nested_10", "nesting", D3, nested(10)),
        entry!("nested_12", "nesting", D1, nested(12)),
        entry!("wide", "struct of 105 fields", Wide, (wide())),
    ]
}
