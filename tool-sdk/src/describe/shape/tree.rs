//! The compile-time description of a schema: the JSON Schema schemars writes for a type, as
//! `&'static` data a `const fn` can read.

/// A schema, or a value inside one, known when the crate is compiled.
///
/// It is the JSON schemars writes for a type, keyword for keyword and in the same order, with
/// three differences that keep it `const`: a `$ref` points to the [`Definition`] it names
/// (written `#/$defs/<name>` when the schema is written out), `Option<T>`'s schema is
/// [`Nullable`](Shape::Nullable) of `T`'s (schemars' rule for allowing `null` is applied where
/// it is read), and the keywords a field adds to its type's schema (its description) are
/// [`Annotated`](Shape::Annotated) on it.
///
/// # Examples
///
/// ```
/// use tool_sdk::describe::{Described, Keyword, Shape};
///
/// let Shape::Schema(keywords) = <u8 as Described>::SHAPE else { unreachable!() };
/// assert_eq!(keywords[0], (Keyword::Type, Shape::Str("integer")));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Shape {
    /// `null`.
    Null,
    /// `true` or `false`: as a schema, any value or none.
    Bool(bool),
    /// An integer.
    Int(i128),
    /// A number with a fraction.
    Float(f64),
    /// A string.
    Str(&'static str),
    /// An array.
    List(&'static [Shape]),
    /// A schema object: its keywords in the order schemars writes them.
    Schema(&'static [(Keyword, Shape)]),
    /// An object whose keys are names (`properties`, an object value).
    Names(&'static [(&'static str, Shape)]),
    /// The value of `$ref`: the definition it names.
    Ref(&'static Definition),
    /// The value of `$ref` inside a type's own definition, naming that type (or one around it)
    /// by its definition's name: a recursive type's reference to itself, which a `const` cannot
    /// hold as a [`Ref`](Shape::Ref) to the definition it is part of.
    Recursive(&'static str),
    /// The value of `$ref` for a named type reached deeper than descriptions unfold (a type
    /// that holds a type that holds it, or a long chain of types inside one another): its
    /// definition's name. The check follows it only to a definition open above it (a type that
    /// holds itself through others) and otherwise leaves its verdict to registration.
    Deep(&'static str),
    /// `Option<T>`: `T`'s schema, `null` allowed as schemars allows it (a union of types with
    /// `"null"`, or `anyOf` with `{"type": "null"}` around a reference or a union).
    Nullable(&'static Shape),
    /// A schema with keywords a use of it adds, over its own (a field's description).
    Annotated(&'static Shape, &'static [(Keyword, Shape)]),
    /// A schema the compile-time check does not know (an argument marked
    /// `#[arg(unchecked)]`): a check that reaches it leaves its verdict to registration.
    Unchecked,
}

/// A named type's schema, which a [`Shape::Ref`] points to, written to `$defs`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Definition {
    /// The name in `$defs`, as schemars names the type.
    pub name: &'static str,
    /// Its schema.
    pub schema: Shape,
}

macro_rules! keywords {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// A JSON Schema keyword that schemars writes, or that the dialects name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Keyword {
            $($(#[$doc])* #[doc = concat!("`", $name, "`")] $variant,)*
            /// Any other keyword, by name.
            Other(&'static str),
        }

        impl Keyword {
            /// The keyword's name in JSON.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Keyword::$variant => $name,)*
                    Keyword::Other(name) => name,
                }
            }

            /// The keyword's place in the list above (`Other` after every one).
            const fn index(self) -> usize {
                #[allow(dead_code)]
                enum Index {
                    $($variant,)*
                    Other,
                }
                match self {
                    $(Keyword::$variant => Index::$variant as usize,)*
                    Keyword::Other(_) => Index::Other as usize,
                }
            }
        }
    };
}

keywords! {
    Type = "type",
    Format = "format",
    Description = "description",
    Title = "title",
    Default = "default",
    Examples = "examples",
    Deprecated = "deprecated",
    ReadOnly = "readOnly",
    WriteOnly = "writeOnly",
    Const = "const",
    Enum = "enum",
    Properties = "properties",
    Required = "required",
    AdditionalProperties = "additionalProperties",
    PropertyNames = "propertyNames",
    PatternProperties = "patternProperties",
    MinProperties = "minProperties",
    MaxProperties = "maxProperties",
    Items = "items",
    PrefixItems = "prefixItems",
    MinItems = "minItems",
    MaxItems = "maxItems",
    UniqueItems = "uniqueItems",
    Minimum = "minimum",
    Maximum = "maximum",
    ExclusiveMinimum = "exclusiveMinimum",
    ExclusiveMaximum = "exclusiveMaximum",
    MultipleOf = "multipleOf",
    MinLength = "minLength",
    MaxLength = "maxLength",
    Pattern = "pattern",
    AnyOf = "anyOf",
    OneOf = "oneOf",
    AllOf = "allOf",
    Not = "not",
    If = "if",
    Then = "then",
    Else = "else",
    Ref = "$ref",
    Defs = "$defs",
}

impl Keyword {
    /// Whether two keywords are one, in a `const fn` (`==` is not `const` for an enum with
    /// data).
    pub(crate) const fn is(self, other: Keyword) -> bool {
        match (self, other) {
            (Keyword::Other(a), Keyword::Other(b)) => same_str(a, b),
            (Keyword::Other(_), _) | (_, Keyword::Other(_)) => false,
            (a, b) => a.index() == b.index(),
        }
    }
}

/// Whether `a` and `b` are the same text, in a `const fn`.
pub(crate) const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// How deep [`same`] looks before it takes two shapes for different: a bound that keeps the
/// comparison of a pathological schema short in `const` evaluation.
const SAME_DEPTH: usize = 32;

/// Whether two shapes are the same: values by value (a float by its bits), schemas keyword for
/// keyword, references by the name of their definition (however each is held); shapes nested deeper than
/// [`SAME_DEPTH`] are taken as different.
pub(crate) const fn same(a: &Shape, b: &Shape) -> bool {
    same_within(a, b, 0)
}

const fn same_within(a: &Shape, b: &Shape, depth: usize) -> bool {
    if depth > SAME_DEPTH {
        return false;
    }
    match (a, b) {
        (Shape::Null, Shape::Null) | (Shape::Unchecked, Shape::Unchecked) => true,
        (Shape::Bool(a), Shape::Bool(b)) => *a == *b,
        (Shape::Int(a), Shape::Int(b)) => *a == *b,
        (Shape::Float(a), Shape::Float(b)) => a.to_bits() == b.to_bits(),
        (Shape::Str(a), Shape::Str(b)) => same_str(a, b),
        // A reference, however it is held, is written `#/$defs/<name>`.
        (
            Shape::Ref(Definition { name: a, .. }) | Shape::Recursive(a) | Shape::Deep(a),
            Shape::Ref(Definition { name: b, .. }) | Shape::Recursive(b) | Shape::Deep(b),
        ) => same_str(a, b),
        (Shape::List(a), Shape::List(b)) => {
            if a.len() != b.len() {
                return false;
            }
            let mut i = 0;
            while i < a.len() {
                if !same_within(&a[i], &b[i], depth + 1) {
                    return false;
                }
                i += 1;
            }
            true
        }
        (Shape::Names(a), Shape::Names(b)) => {
            if a.len() != b.len() {
                return false;
            }
            let mut i = 0;
            while i < a.len() {
                if !same_str(a[i].0, b[i].0) || !same_within(&a[i].1, &b[i].1, depth + 1) {
                    return false;
                }
                i += 1;
            }
            true
        }
        (Shape::Schema(a), Shape::Schema(b)) => same_keywords(a, b, depth),
        (Shape::Nullable(a), Shape::Nullable(b)) => same_within(a, b, depth + 1),
        (Shape::Annotated(a, x), Shape::Annotated(b, y)) => {
            same_within(a, b, depth + 1) && same_keywords(x, y, depth)
        }
        _ => false,
    }
}

const fn same_keywords(a: &[(Keyword, Shape)], b: &[(Keyword, Shape)], depth: usize) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !a[i].0.is(b[i].0) || !same_within(&a[i].1, &b[i].1, depth + 1) {
            return false;
        }
        i += 1;
    }
    true
}
