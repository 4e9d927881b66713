//! The compile-time check holds to the run-time walk: written out, a shape is what schemars
//! writes, and over a family of shapes the verdicts, pointers and rules are the walk's.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

use crate::describe::{
    check_shape, lower, Definition, Described, Dialect, Keyword, Shape, ShapeVerdict,
};

/// schemars' schema of `T`, as a use of it has it (`true` for a value of any type).
fn schemars_of<T: JsonSchema>() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let schema = generator.subschema_for::<T>().to_value();
    let defs = generator.take_definitions(true);
    let mut schema = schema;
    if let (Value::Object(object), false) = (&mut schema, defs.is_empty()) {
        object.insert("$defs".into(), Value::Object(defs));
    }
    schema
}

macro_rules! same_as_schemars {
    ($($ty:ty),* $(,)?) => {
        $(assert_eq!(
            <$ty as Described>::SHAPE.to_json_schema(),
            schemars_of::<$ty>(),
            "{}",
            stringify!($ty)
        );)*
    };
}

#[test]
fn standard_types_are_described_as_schemars_describes_them() {
    same_as_schemars!(
        bool, String, char, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize,
        f32, f64, (), std::path::PathBuf, serde_json::Value,
        serde_json::Map<String, serde_json::Value>,
        Option<u8>, Option<String>, Option<Option<i32>>, Option<serde_json::Value>, Option<()>,
        Option<Vec<u8>>, Vec<Option<u8>>, Box<str>, std::sync::Arc<u8>,
        Vec<String>, VecDeque<u8>, HashSet<String>, BTreeSet<i64>, [u8; 3],
        HashMap<String, u8>, BTreeMap<String, Vec<u8>>, BTreeMap<u32, u8>, HashMap<i64, String>,
        HashMap<char, bool>, (u8,), (u8, String), (i32, i32, i32), Option<(u8, f64)>,
        Vec<serde_json::Value>, Option<HashMap<String, u8>>,
    );
}

static NAMES: AtomicUsize = AtomicUsize::new(0);

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

fn slice<T>(values: Vec<T>) -> &'static [T] {
    Box::leak(values.into_boxed_slice())
}

/// A type of the family: what a tool's argument can be.
#[derive(Debug, Clone)]
enum Ty {
    Leaf(u8),
    Option(Box<Ty>),
    Vec(Box<Ty>),
    Set(Box<Ty>),
    Array(Box<Ty>, u8),
    Map(Box<Ty>),
    IntMap(Box<Ty>),
    Tuple(Vec<Ty>),
    Struct {
        fields: Vec<(Ty, bool, bool)>,
        closed: bool,
        recursive: u8,
    },
    UnitEnum(u8),
    External(Vec<Ty>),
    Internal(Vec<Vec<Ty>>),
    Adjacent(Vec<Ty>),
    Untagged(Vec<Ty>),
    /// Arrays in arrays, this many levels.
    Deep(u8, Box<Ty>),
}

/// What a hand-written `JsonSchema` or `#[schemars(inline)]` gives: a union of types, and
/// enumerations inline.
const UNION_OF_TYPES: Shape = Shape::Schema(&[(
    Keyword::Type,
    Shape::List(&[Shape::Str("string"), Shape::Str("number")]),
)]);
const STRING_ENUM: Shape = Shape::Schema(&[
    (Keyword::Type, Shape::Str("string")),
    (
        Keyword::Enum,
        Shape::List(&[Shape::Str("a"), Shape::Str("b")]),
    ),
]);
const INTEGER_ENUM: Shape = Shape::Schema(&[
    (Keyword::Type, Shape::Str("integer")),
    (Keyword::Enum, Shape::List(&[Shape::Int(1), Shape::Int(2)])),
]);

fn leaf(kind: u8) -> Shape {
    match kind % 13 {
        10 => UNION_OF_TYPES,
        11 => STRING_ENUM,
        12 => INTEGER_ENUM,
        0 => bool::SHAPE,
        1 => String::SHAPE,
        2 => char::SHAPE,
        3 => u8::SHAPE,
        4 => i32::SHAPE,
        5 => u64::SHAPE,
        6 => f64::SHAPE,
        7 => serde_json::Value::SHAPE,
        8 => <()>::SHAPE,
        _ => i8::SHAPE,
    }
}

fn ty() -> impl Strategy<Value = Ty> {
    let leaf = any::<u8>().prop_map(Ty::Leaf);
    leaf.prop_recursive(5, 40, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| Ty::Option(Box::new(t))),
            inner.clone().prop_map(|t| Ty::Vec(Box::new(t))),
            inner.clone().prop_map(|t| Ty::Set(Box::new(t))),
            (inner.clone(), 1..4u8).prop_map(|(t, n)| Ty::Array(Box::new(t), n)),
            inner.clone().prop_map(|t| Ty::Map(Box::new(t))),
            inner.clone().prop_map(|t| Ty::IntMap(Box::new(t))),
            prop::collection::vec(inner.clone(), 1..4).prop_map(Ty::Tuple),
            (
                prop::collection::vec((inner.clone(), any::<bool>(), any::<bool>()), 0..4),
                any::<bool>(),
                0..4u8
            )
                .prop_map(|(fields, closed, recursive)| Ty::Struct {
                    fields,
                    closed,
                    recursive
                }),
            (1..4u8).prop_map(Ty::UnitEnum),
            prop::collection::vec(inner.clone(), 1..4).prop_map(Ty::External),
            prop::collection::vec(prop::collection::vec(inner.clone(), 0..3), 1..4)
                .prop_map(Ty::Internal),
            prop::collection::vec(inner.clone(), 1..4).prop_map(Ty::Adjacent),
            prop::collection::vec(inner.clone(), 1..4).prop_map(Ty::Untagged),
            (0..14u8, inner).prop_map(|(n, t)| Ty::Deep(n, Box::new(t))),
        ]
    })
}

fn text(text: String) -> Shape {
    Shape::Str(Box::leak(text.into_boxed_str()))
}

fn object(
    properties: Vec<(&'static str, Shape)>,
    required: Vec<&'static str>,
    closed: bool,
) -> Shape {
    let mut keywords = vec![(Keyword::Type, Shape::Str("object"))];
    keywords.push((Keyword::Properties, Shape::Names(slice(properties))));
    if !required.is_empty() {
        let required = required.into_iter().map(Shape::Str).collect();
        keywords.push((Keyword::Required, Shape::List(slice(required))));
    }
    if closed {
        keywords.push((Keyword::AdditionalProperties, Shape::Bool(false)));
    }
    Shape::Schema(slice(keywords))
}

fn tag(name: String) -> Shape {
    Shape::Schema(slice(vec![
        (Keyword::Type, Shape::Str("string")),
        (Keyword::Const, text(name)),
    ]))
}

fn named(schema: Shape) -> Shape {
    let name = format!("T{}", NAMES.fetch_add(1, Ordering::Relaxed));
    let definition = leak(Definition {
        name: Box::leak(name.into_boxed_str()),
        schema,
    });
    Shape::Schema(slice(vec![(Keyword::Ref, Shape::Ref(definition))]))
}

/// `ty`'s shape, as schemars would write it; `around` names the struct a recursive field
/// refers to.
fn shape(ty: &Ty, around: Option<&'static str>) -> Shape {
    let list = |types: &[Ty]| -> &'static [Shape] {
        slice(types.iter().map(|t| shape(t, around)).collect())
    };
    match ty {
        Ty::Leaf(kind) => leaf(*kind),
        Ty::Option(inner) => Shape::Nullable(leak(shape(inner, around))),
        Ty::Vec(inner) => Shape::Schema(slice(vec![
            (Keyword::Type, Shape::Str("array")),
            (Keyword::Items, shape(inner, around)),
        ])),
        Ty::Set(inner) => Shape::Schema(slice(vec![
            (Keyword::Type, Shape::Str("array")),
            (Keyword::UniqueItems, Shape::Bool(true)),
            (Keyword::Items, shape(inner, around)),
        ])),
        Ty::Array(inner, n) => Shape::Schema(slice(vec![
            (Keyword::Type, Shape::Str("array")),
            (Keyword::Items, shape(inner, around)),
            (Keyword::MinItems, Shape::Int(i128::from(*n))),
            (Keyword::MaxItems, Shape::Int(i128::from(*n))),
        ])),
        Ty::Map(inner) => Shape::Schema(slice(vec![
            (Keyword::Type, Shape::Str("object")),
            (Keyword::AdditionalProperties, shape(inner, around)),
        ])),
        Ty::IntMap(inner) => Shape::Schema(slice(vec![
            (Keyword::Type, Shape::Str("object")),
            (Keyword::AdditionalProperties, Shape::Bool(false)),
            (
                Keyword::PatternProperties,
                Shape::Names(slice(vec![(r"^\d+$", shape(inner, around))])),
            ),
        ])),
        Ty::Tuple(types) => Shape::Schema(slice(vec![
            (Keyword::Type, Shape::Str("array")),
            (Keyword::PrefixItems, Shape::List(list(types))),
            (Keyword::MinItems, Shape::Int(types.len() as i128)),
            (Keyword::MaxItems, Shape::Int(types.len() as i128)),
        ])),
        Ty::Struct {
            fields,
            closed,
            recursive,
        } => {
            let name: &'static str =
                Box::leak(format!("T{}", NAMES.fetch_add(1, Ordering::Relaxed)).into_boxed_str());
            let mut properties = Vec::new();
            let mut required = Vec::new();
            for (i, (field, optional, documented)) in fields.iter().enumerate() {
                let field_name: &'static str = Box::leak(format!("f{i}").into_boxed_str());
                let mut field_shape = shape(field, Some(name));
                if *documented {
                    field_shape = Shape::Annotated(
                        leak(field_shape),
                        slice(vec![(Keyword::Description, text(format!("field {i}")))]),
                    );
                }
                properties.push((field_name, field_shape));
                if !optional {
                    required.push(field_name);
                }
            }
            let me = Shape::Schema(slice(vec![(Keyword::Ref, Shape::Recursive(name))]));
            match recursive {
                1 => properties.push(("next", Shape::Nullable(leak(me)))),
                2 => properties.push((
                    "children",
                    Shape::Schema(slice(vec![
                        (Keyword::Type, Shape::Str("array")),
                        (Keyword::Items, me),
                    ])),
                )),
                _ => {}
            }
            let _ = around;
            Shape::Schema(slice(vec![(
                Keyword::Ref,
                Shape::Ref(leak(Definition {
                    name,
                    schema: object(properties, required, *closed),
                })),
            )]))
        }
        Ty::UnitEnum(count) => named(Shape::Schema(slice(vec![
            (Keyword::Type, Shape::Str("string")),
            (
                Keyword::Enum,
                Shape::List(slice((0..*count).map(|i| text(format!("V{i}"))).collect())),
            ),
        ]))),
        Ty::External(types) => {
            let branches = types
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let variant: &'static str = Box::leak(format!("V{i}").into_boxed_str());
                    object(vec![(variant, shape(t, around))], vec![variant], true)
                })
                .collect();
            named(Shape::Schema(slice(vec![(
                Keyword::OneOf,
                Shape::List(slice(branches)),
            )])))
        }
        Ty::Internal(variants) => {
            let branches = variants
                .iter()
                .enumerate()
                .map(|(i, fields)| {
                    let mut properties = vec![("kind", tag(format!("V{i}")))];
                    let mut required = vec!["kind"];
                    for (j, field) in fields.iter().enumerate() {
                        let name: &'static str = Box::leak(format!("g{j}").into_boxed_str());
                        properties.push((name, shape(field, around)));
                        required.push(name);
                    }
                    object(properties, required, false)
                })
                .collect();
            named(Shape::Schema(slice(vec![(
                Keyword::OneOf,
                Shape::List(slice(branches)),
            )])))
        }
        Ty::Adjacent(types) => {
            let branches = types
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    object(
                        vec![("t", tag(format!("V{i}"))), ("c", shape(t, around))],
                        vec!["t", "c"],
                        false,
                    )
                })
                .collect();
            named(Shape::Schema(slice(vec![(
                Keyword::OneOf,
                Shape::List(slice(branches)),
            )])))
        }
        Ty::Deep(levels, inner) => {
            let mut nested = shape(inner, around);
            for _ in 0..*levels {
                nested = Shape::Schema(slice(vec![
                    (Keyword::Type, Shape::Str("array")),
                    (Keyword::Items, nested),
                ]));
            }
            nested
        }
        Ty::Untagged(types) => named(Shape::Schema(slice(vec![(
            Keyword::AnyOf,
            Shape::List(list(types)),
        )]))),
    }
}

/// A tool's parameters: one property per type.
fn parameters(types: &[(Ty, bool)]) -> &'static Shape {
    let mut properties = Vec::new();
    let mut required = Vec::new();
    for (i, (ty, optional)) in types.iter().enumerate() {
        let name: &'static str = Box::leak(format!("p{i}").into_boxed_str());
        properties.push((name, shape(ty, None)));
        if !optional {
            required.push(name);
        }
    }
    leak(object(properties, required, true))
}

/// The check and the walk agree on `parameters` for every dialect; how many verdicts the
/// check left to registration.
fn agree(parameters: &'static Shape) -> Result<usize, TestCaseError> {
    let schema = parameters.to_json_schema();
    let mut unchecked = 0;
    for dialect in Dialect::ALL {
        let walked = lower("t", &schema, dialect);
        match (check_shape("t", parameters, dialect), walked) {
            (ShapeVerdict::Fits, Ok(_)) => {}
            (ShapeVerdict::Refused(checked), Err(walked)) => {
                prop_assert_eq!(checked, walked, "{}", schema);
            }
            (ShapeVerdict::Unchecked(_), _) => unchecked += 1,
            (checked, walked) => {
                return Err(TestCaseError::fail(format!(
                    "{dialect:?}: the check says {checked:?}, the walk {walked:?}, for {schema}"
                )))
            }
        }
    }
    Ok(unchecked)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn the_check_agrees_with_the_walk(types in prop::collection::vec((ty(), any::<bool>()), 1..5)) {
        agree(parameters(&types))?;
    }
}

/// The family reaches every rule the check can give, and leaves few verdicts to registration:
/// the agreement above is over refusals of each kind, not over schemas every dialect takes.
#[test]
fn the_family_reaches_every_rule() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let strategy = prop::collection::vec((ty(), any::<bool>()), 1..5);
    let mut rules = BTreeMap::<String, usize>::new();
    let (mut verdicts, mut unchecked) = (0, 0);
    for _ in 0..2_000 {
        let types = strategy.new_tree(&mut runner).unwrap().current();
        let parameters = parameters(&types);
        for dialect in Dialect::ALL {
            verdicts += 1;
            match check_shape("t", parameters, dialect) {
                ShapeVerdict::Fits => *rules.entry("fits".into()).or_default() += 1,
                ShapeVerdict::Refused(error) => {
                    let rule: String = error.rule().chars().take(24).collect();
                    *rules.entry(rule).or_default() += 1;
                }
                ShapeVerdict::Unchecked(why) => {
                    unchecked += 1;
                    *rules.entry(format!("unchecked: {why}")).or_default() += 1;
                }
            }
        }
    }
    println!("{verdicts} verdicts: {rules:#?}");
    assert!(
        unchecked * 20 < verdicts,
        "{unchecked} of {verdicts} unchecked"
    );
    for rule in [
        "fits",
        "a map (an object whose k",
        "a union of several types",
        "only strings can be enum",
        "a value of any type (a s",
        "array items of any type ",
        "a tuple of different typ",
        "the recursive type `#/$d",
        "nesting deeper than 10 l",
    ] {
        assert!(rules.contains_key(rule), "no verdict `{rule}`: {rules:#?}");
    }
}

/// The limits strict mode counts over the whole schema: 5,000 properties and 1,000
/// enumeration values, each just under and just over.
#[test]
fn the_check_counts_as_the_walk_counts() {
    let properties = |count: usize| {
        let names: Vec<(&'static str, Shape)> = (0..count)
            .map(|i| (&*Box::leak(format!("p{i}").into_boxed_str()), bool::SHAPE))
            .collect();
        leak(object(names, Vec::new(), true))
    };
    let enumerations = |count: usize| {
        let values: Vec<Shape> = (0..count).map(|i| text(format!("v{i}"))).collect();
        let kind = Shape::Schema(slice(vec![
            (Keyword::Type, Shape::Str("string")),
            (Keyword::Enum, Shape::List(slice(values))),
        ]));
        leak(object(vec![("kind", kind)], vec!["kind"], true))
    };
    for parameters in [
        properties(5_000),
        properties(5_001),
        enumerations(1_000),
        enumerations(1_001),
    ] {
        agree(parameters).expect("the check and the walk agree");
    }
    let ShapeVerdict::Refused(error) = check_shape("t", properties(5_001), Dialect::OpenAiStrict)
    else {
        panic!("more than 5,000 properties are refused");
    };
    assert_eq!(error.rule(), "more than 5000 properties");
    let ShapeVerdict::Refused(error) = check_shape("t", enumerations(1_001), Dialect::OpenAiStrict)
    else {
        panic!("more than 1,000 enumeration values are refused");
    };
    assert_eq!(
        (error.pointer(), error.rule()),
        ("/properties/kind/enum", "more than 1000 enumeration values")
    );
}

/// What the tool macros check (the parameters as a list, each with or without a keyword of its
/// own) is what the walk of the arguments struct's schema gives: the same verdict, pointer,
/// rule and parameter, for every dialect.
fn list_agrees(types: &[(Ty, bool)]) -> Result<(), TestCaseError> {
    use crate::describe::rules;
    use crate::describe::shape::check::{check, check_parameters, Parameter, Verdict};
    use crate::describe::shape::text::Message;

    let mut list: Vec<Parameter> = Vec::new();
    let mut properties = Vec::new();
    for (i, (ty, noted)) in types.iter().enumerate() {
        let name: &'static str = Box::leak(format!("p{i}").into_boxed_str());
        let shape = shape(ty, None);
        let property = if *noted {
            Shape::Annotated(
                leak(shape),
                slice(vec![(Keyword::Description, Shape::Str(""))]),
            )
        } else {
            shape
        };
        list.push((name, shape, *noted));
        properties.push((name, property));
    }
    let list: &'static [Parameter] = slice(list);
    let root = leak(object(properties, Vec::new(), true));
    let seen = |verdict: Verdict| match verdict {
        Verdict::Fits => "fits".to_owned(),
        Verdict::Unchecked(why) => format!("unchecked: {why}"),
        Verdict::Refused {
            kind,
            pointer,
            rule,
            property,
        } => {
            let mut at = Message::new();
            at.pointer(&pointer);
            format!("{kind:?} at {} ({property:?}): {rule}", at.as_str())
        }
    };
    for dialect in Dialect::ALL {
        let whole = seen(check(rules::of(dialect), root));
        // A parameter the list cannot read is skipped; the whole root then has no verdict.
        if whole.starts_with("unchecked") {
            continue;
        }
        prop_assert_eq!(
            seen(check_parameters(rules::of(dialect), list)),
            whole,
            "{:?}",
            dialect
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn the_list_of_parameters_is_checked_as_their_object(
        types in prop::collection::vec((ty(), any::<bool>()), 1..5)
    ) {
        list_agrees(&types)?;
    }
}

/// Two tuple elements that differ only where a dialect rewrites them are told apart as the walk
/// tells them apart: constants Gemini says as enumerations, and objects that differ only in
/// which properties they require, which strict mode makes nullable.
#[test]
fn tuple_elements_differ_where_the_dialect_rewrites_them() {
    let tuple = |a: Shape, b: Shape| {
        Shape::Schema(slice(vec![
            (Keyword::Type, Shape::Str("array")),
            (Keyword::PrefixItems, Shape::List(slice(vec![a, b]))),
            (Keyword::MinItems, Shape::Int(2)),
            (Keyword::MaxItems, Shape::Int(2)),
        ]))
    };
    let constant = |value: &'static str| {
        Shape::Schema(slice(vec![
            (Keyword::Type, Shape::Str("string")),
            (Keyword::Const, Shape::Str(value)),
        ]))
    };
    let requiring =
        |required: Vec<&'static str>| object(vec![("x", String::SHAPE)], required, false);
    for pair in [
        tuple(constant("a"), constant("b")),
        tuple(requiring(vec!["x"]), requiring(Vec::new())),
    ] {
        let parameters = leak(object(vec![("pair", pair)], vec!["pair"], true));
        agree(parameters).expect("the check and the walk agree");
        let refused = Dialect::ALL.iter().any(|&dialect| {
            matches!(
                check_shape("t", parameters, dialect),
                ShapeVerdict::Refused(_)
            )
        });
        assert!(
            refused,
            "a dialect of one item type refuses {}",
            parameters.to_json_schema()
        );
    }
}
