//! [`Described`]: the compile-time description of a type's schema, for the standard types as
//! schemars describes them.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use crate::describe::shape::tree::{Keyword, Shape};

/// Calls `$then` with every depth below the top that descriptions unfold to: its marker type
/// and the name of the description at that depth. A chain of named types longer than this is
/// described with a reference by name at its end ([`Shape::Deep`]), whose check is left to
/// registration.
macro_rules! with_depths {
    ($then:ident) => {
        $then! {
            Depth1 => DEPTH_1,
            Depth2 => DEPTH_2,
            Depth3 => DEPTH_3,
            Depth4 => DEPTH_4,
            Depth5 => DEPTH_5,
            Depth6 => DEPTH_6,
            Depth7 => DEPTH_7,
            Depth8 => DEPTH_8,
            Depth9 => DEPTH_9,
            Depth10 => DEPTH_10,
            Depth11 => DEPTH_11,
            Depth12 => DEPTH_12,
            Depth13 => DEPTH_13,
            Depth14 => DEPTH_14,
            Depth15 => DEPTH_15,
            Depth16 => DEPTH_16,
        }
    };
}

/// The descriptions below the top, in the trait: its own by default.
macro_rules! depth_consts {
    ($($depth:ident => $shape:ident,)*) => {
        $(
            #[doc(hidden)]
            const $shape: Shape = Self::SHAPE;
        )*
    };
}

/// A type whose JSON Schema is known when the crate is compiled, so that a tool taking it can
/// be checked against a provider's dialect by `cargo check`.
///
/// [`SHAPE`](Self::SHAPE) is the schema schemars' `subschema_for` gives for the type: the
/// schema itself for the standard types, a `$ref` to its definition for a named type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no compile-time description for the dialect check",
    label = "the dialects chosen for this tool are checked when it is compiled",
    note = "a type of your crate: derive `tool_sdk::describe::Described` beside its `JsonSchema` \
            (or implement it by hand, beside a hand-written `JsonSchema`)",
    note = "a type of another crate, which cannot be derived here: mark the argument \
            `#[arg(unchecked)]` to leave its check to registration"
)]
pub trait Described {
    /// The type's schema, as a use of the type has it.
    const SHAPE: Shape;

    // The type's schema as a use of it has it one named type deep (a field of a derived type's
    // field), two, and so on: `DEPTH_1` to `DEPTH_16`, each the same as `SHAPE` but for
    // derived types and the types around them. A derived type describes its fields one level
    // deeper than itself, and at the last level refers to itself by name (`Shape::Deep`): so
    // two types that hold each other are described without a cycle, which a `const` cannot
    // hold. A type described by hand keeps them as they are.
    with_depths!(depth_consts);
}

/// `T` described as a use of it `D` named types deep ([`Depth1`] to [`Depth16`]) has it: what
/// a derived type's description of its fields, and a container's of its content, use below
/// the top.
#[derive(Debug)]
pub struct AtDepth<T: ?Sized, D>(
    std::marker::PhantomData<D>,
    std::marker::PhantomData<*const T>,
);

/// Defines, for each depth, a marker type and `AtDepth`'s description at that depth, and
/// `deeper!`, which defines a container's descriptions below the top.
macro_rules! depths {
    ($($depth:ident => $shape:ident,)*) => {
        $(
            #[doc = concat!("A depth of [`AtDepth`]: `Described::", stringify!($shape), "`.")]
            #[derive(Debug)]
            pub struct $depth;

            impl<T: Described + ?Sized> Described for AtDepth<T, $depth> {
                const SHAPE: Shape = T::$shape;
            }
        )*

        /// Defines a container's descriptions below the top from `$ty`, the container of its
        /// content at a depth, written with `Level` for the depth.
        macro_rules! deeper {
            ($ty:ty) => {
                $(const $shape: Shape = {
                    type Level = $depth;
                    <$ty as Described>::SHAPE
                };)*
            };
        }
    };
}

with_depths!(depths);

/// Describes types whose schema is one constant.
macro_rules! described {
    ($($ty:ty => [$($keyword:ident: $value:expr),*];)*) => {
        $(impl Described for $ty {
            const SHAPE: Shape = Shape::Schema(&[$((Keyword::$keyword, $value)),*]);
        })*
    };
}

const fn text(text: &'static str) -> Shape {
    Shape::Str(text)
}

described! {
    bool => [Type: text("boolean")];
    String => [Type: text("string")];
    str => [Type: text("string")];
    char => [Type: text("string"), MinLength: Shape::Int(1), MaxLength: Shape::Int(1)];
    i8 => [Type: text("integer"), Format: text("int8"), Minimum: Shape::Int(i8::MIN as i128), Maximum: Shape::Int(i8::MAX as i128)];
    i16 => [Type: text("integer"), Format: text("int16"), Minimum: Shape::Int(i16::MIN as i128), Maximum: Shape::Int(i16::MAX as i128)];
    i32 => [Type: text("integer"), Format: text("int32")];
    i64 => [Type: text("integer"), Format: text("int64")];
    i128 => [Type: text("integer"), Format: text("int128")];
    isize => [Type: text("integer"), Format: text("int")];
    u8 => [Type: text("integer"), Format: text("uint8"), Minimum: Shape::Int(0), Maximum: Shape::Int(u8::MAX as i128)];
    u16 => [Type: text("integer"), Format: text("uint16"), Minimum: Shape::Int(0), Maximum: Shape::Int(u16::MAX as i128)];
    u32 => [Type: text("integer"), Format: text("uint32"), Minimum: Shape::Int(0)];
    u64 => [Type: text("integer"), Format: text("uint64"), Minimum: Shape::Int(0)];
    u128 => [Type: text("integer"), Format: text("uint128"), Minimum: Shape::Int(0)];
    usize => [Type: text("integer"), Format: text("uint"), Minimum: Shape::Int(0)];
    f32 => [Type: text("number"), Format: text("float")];
    f64 => [Type: text("number"), Format: text("double")];
    () => [Type: text("null")];
    std::path::PathBuf => [Type: text("string")];
    std::path::Path => [Type: text("string")];
}

impl Described for serde_json::Value {
    const SHAPE: Shape = Shape::Bool(true);
}

impl Described for serde_json::Map<String, serde_json::Value> {
    const SHAPE: Shape = Shape::Schema(&[
        (Keyword::Type, Shape::Str("object")),
        (Keyword::AdditionalProperties, Shape::Bool(true)),
    ]);
}

impl<T: Described> Described for Option<T> {
    const SHAPE: Shape = Shape::Nullable(&T::SHAPE);
    deeper!(Option<AtDepth<T, Level>>);
}

/// Types whose schema is their content's.
macro_rules! transparent {
    ($($ty:ty),*) => {
        $(impl<T: Described + ?Sized> Described for $ty {
            const SHAPE: Shape = T::SHAPE;
            deeper!(AtDepth<T, Level>);
        })*
    };
}

transparent!(Box<T>, Rc<T>, Arc<T>, &T, &mut T);

impl<T: Described + ToOwned + ?Sized> Described for Cow<'_, T> {
    const SHAPE: Shape = T::SHAPE;
    deeper!(AtDepth<T, Level>);
}

/// Sequences: an array of one item type.
macro_rules! sequences {
    ($($ty:ident),*) => {
        $(impl<T: Described> Described for $ty<T> {
            const SHAPE: Shape = Shape::Schema(&[
                (Keyword::Type, Shape::Str("array")),
                (Keyword::Items, T::SHAPE),
            ]);
            deeper!($ty<AtDepth<T, Level>>);
        })*
    };
}

sequences!(Vec, VecDeque, LinkedList, BinaryHeap);

impl<T: Described> Described for [T] {
    const SHAPE: Shape = <Vec<T> as Described>::SHAPE;
    deeper!([AtDepth<T, Level>]);
}

/// Sets: an array of one item type, each item once.
impl<T: Described, S> Described for HashSet<T, S> {
    const SHAPE: Shape = Shape::Schema(&[
        (Keyword::Type, Shape::Str("array")),
        (Keyword::UniqueItems, Shape::Bool(true)),
        (Keyword::Items, T::SHAPE),
    ]);
    deeper!(HashSet<AtDepth<T, Level>, S>);
}

impl<T: Described> Described for BTreeSet<T> {
    const SHAPE: Shape = <HashSet<T> as Described>::SHAPE;
    deeper!(BTreeSet<AtDepth<T, Level>>);
}

impl<T: Described, const N: usize> Described for [T; N] {
    // schemars says an empty array without its items' schema.
    const SHAPE: Shape = if N == 0 {
        Shape::Schema(&[
            (Keyword::Type, Shape::Str("array")),
            (Keyword::MaxItems, Shape::Int(0)),
        ])
    } else {
        Shape::Schema(&[
            (Keyword::Type, Shape::Str("array")),
            (Keyword::Items, T::SHAPE),
            (Keyword::MinItems, Shape::Int(N as i128)),
            (Keyword::MaxItems, Shape::Int(N as i128)),
        ])
    };
    deeper!([AtDepth<T, Level>; N]);
}

/// A type that can key a map, and how schemars says its keys.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no compile-time description as a map key",
    note = "strings and integers key a described map; mark the argument `#[arg(unchecked)]` \
            to leave its check to registration"
)]
pub trait DescribedKey {
    /// The pattern every key matches (`None`: any string).
    const PATTERN: Option<&'static str>;
}

macro_rules! keys {
    ($pattern:expr => $($ty:ty),*) => {
        $(impl DescribedKey for $ty {
            const PATTERN: Option<&'static str> = $pattern;
        })*
    };
}

keys!(None => String, str, char);
keys!(Some(r"^\d+$") => u8, u16, u32, u64, u128, usize);
keys!(Some(r"^-?\d+$") => i8, i16, i32, i64, i128, isize);

impl<T: DescribedKey + ?Sized> DescribedKey for Box<T> {
    const PATTERN: Option<&'static str> = T::PATTERN;
}

impl<T: DescribedKey + ToOwned + ?Sized> DescribedKey for Cow<'_, T> {
    const PATTERN: Option<&'static str> = T::PATTERN;
}

/// A map's schema: its values' schema for every key, or for the keys that match a pattern
/// (integers), as schemars says it.
macro_rules! maps {
    ($($ty:ty),*) => {
        $(impl<K: DescribedKey, V: Described, S> Described for $ty {
            const SHAPE: Shape = match K::PATTERN {
                None => Shape::Schema(&[
                    (Keyword::Type, Shape::Str("object")),
                    (Keyword::AdditionalProperties, V::SHAPE),
                ]),
                Some(pattern) => Shape::Schema(&[
                    (Keyword::Type, Shape::Str("object")),
                    (Keyword::AdditionalProperties, Shape::Bool(false)),
                    (Keyword::PatternProperties, Shape::Names(&[(pattern, V::SHAPE)])),
                ]),
            };
            deeper!(HashMap<K, AtDepth<V, Level>, S>);
        })*
    };
}

maps!(HashMap<K, V, S>);

impl<K: DescribedKey, V: Described> Described for BTreeMap<K, V> {
    const SHAPE: Shape = <HashMap<K, V> as Described>::SHAPE;
    deeper!(BTreeMap<K, AtDepth<V, Level>>);
}

/// Tuples: an array with a schema per position, of its length.
macro_rules! tuples {
    ($($len:literal => ($($name:ident),+);)*) => {
        $(impl<$($name: Described),+> Described for ($($name,)+) {
            const SHAPE: Shape = Shape::Schema(&[
                (Keyword::Type, Shape::Str("array")),
                (Keyword::PrefixItems, Shape::List(&[$($name::SHAPE),+])),
                (Keyword::MinItems, Shape::Int($len)),
                (Keyword::MaxItems, Shape::Int($len)),
            ]);
            deeper!(($(AtDepth<$name, Level>,)+));
        })*
    };
}

tuples! {
    1 => (A);
    2 => (A, B);
    3 => (A, B, C);
    4 => (A, B, C, D);
    5 => (A, B, C, D, E);
    6 => (A, B, C, D, E, F);
    7 => (A, B, C, D, E, F, G);
    8 => (A, B, C, D, E, F, G, H);
}

/// The name of a type's definition in `$defs`, which `#[derive(Described)]` gives beside its
/// description: what a reference back to the type (recursion) names.
pub trait DefinitionName {
    /// The name, as schemars names the type.
    const NAME: &'static str;
}

/// Stands, in the description of a type's fields, for the type itself: a reference back to its
/// definition by name, where the definition cannot contain itself.
#[derive(Debug)]
pub struct Recursion<T: ?Sized>(std::marker::PhantomData<T>);

impl<T: DefinitionName + ?Sized> Described for Recursion<T> {
    const SHAPE: Shape = Shape::Schema(&[(Keyword::Ref, Shape::Recursive(T::NAME))]);
}

/// The value of `$ref` in `shape`, the use of a named type; [`Shape::Unchecked`] for a type
/// used inline.
pub const fn reference_of(shape: &Shape) -> Shape {
    match shape {
        Shape::Schema([(Keyword::Ref, reference)]) => *reference,
        _ => Shape::Unchecked,
    }
}

/// The keyword schemars' `length(min, max)` bound is for a schema of `shape`'s type:
/// `minLength` for a string, `minItems` for an array, `minProperties` for an object.
pub const fn length_keyword(shape: &Shape, min: bool) -> Keyword {
    let (items, properties, length) = if min {
        (
            Keyword::MinItems,
            Keyword::MinProperties,
            Keyword::MinLength,
        )
    } else {
        (
            Keyword::MaxItems,
            Keyword::MaxProperties,
            Keyword::MaxLength,
        )
    };
    if has_type(shape, "array", 0) {
        items
    } else if has_type(shape, "object", 0) {
        properties
    } else {
        length
    }
}

/// Whether `shape`'s `type` is or includes `kind` (through at most a few wrappers).
const fn has_type(shape: &Shape, kind: &str, wrappers: usize) -> bool {
    use crate::describe::shape::tree::same_str;
    match shape {
        Shape::Nullable(inner) | Shape::Annotated(inner, _) if wrappers < 8 => {
            has_type(inner, kind, wrappers + 1)
        }
        Shape::Schema(keywords) => {
            let mut i = 0;
            while i < keywords.len() {
                if let (Keyword::Type, kinds) = &keywords[i] {
                    return match kinds {
                        Shape::Str(one) => same_str(one, kind),
                        Shape::List(many) => {
                            let mut j = 0;
                            while j < many.len() {
                                if let Shape::Str(one) = &many[j] {
                                    if same_str(one, kind) {
                                        return true;
                                    }
                                }
                                j += 1;
                            }
                            false
                        }
                        _ => false,
                    };
                }
                i += 1;
            }
            false
        }
        _ => false,
    }
}
