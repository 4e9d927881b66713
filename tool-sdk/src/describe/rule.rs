//! The rules a schema breaks, said once: the run-time walk and the compile-time check both name
//! a [`Rule`], so a [`LoweringError`](super::LoweringError) and a compile error read the same.
//!
//! A rule is said as [pieces](Piece) (text and numbers) rather than a `String`, so that a
//! `const fn` can write it where no allocation is possible.

use std::fmt;

/// A rule a schema breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule<'a> {
    /// Nesting deeper than the dialect's limit.
    Deeper { max: usize },
    /// More than `max` of `what` (properties, enumeration values) in one schema.
    MoreThan { max: usize, what: &'static str },
    /// Inlining references multiplies the schema past what one lowering visits.
    Expands { max: usize },
    /// Too many whole objects from composing flattened enums.
    Combinations { max: usize },
    /// `true` or `false` where a schema must say its type.
    BooleanSchema,
    /// `properties` that is no object.
    PropertiesNotObject,
    /// `items: true` (or no object).
    ItemsOfAnyType,
    /// `additionalProperties` other than `false` where objects are closed.
    Map { because: &'static str },
    /// `patternProperties` (a map whose keys must match a pattern, as integer keys must),
    /// where the dialect has no such keyword.
    KeyPattern,
    /// A composition keyword (`anyOf`, `oneOf`, `allOf`, `enum`, `prefixItems`) that is no array.
    NotArray { keyword: &'a str },
    /// A union at the root.
    RootUnion,
    /// `anyOf` and `oneOf` in one schema.
    AnyOfBesideOneOf,
    /// `allOf` that cannot be merged, where the dialect has no `allOf`.
    AllOf,
    /// A non-string enumeration value where only strings can be enumerated.
    StringEnumsOnly,
    /// A schema without `type`.
    AnyType,
    /// `type` naming several types, where there is one.
    UnionOfTypes,
    /// `prefixItems` of different types, where arrays have one item type.
    TupleOfTypes,
    /// A recursive type, where there is no recursion.
    Recursive { reference: Reference<'a> },
    /// A recursive type, where references are inlined.
    RecursiveInlined { reference: Reference<'a> },
    /// A `$ref` that leads nowhere.
    Unresolved { reference: Reference<'a> },
}

/// A `$ref` as a rule names it: its text, or the name of a definition in `$defs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reference<'a> {
    /// The reference as written.
    Text(&'a str),
    /// `#/$defs/` and this name.
    Definition(&'a str),
}

/// A piece of a rule's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// Text.
    Text(&'a str),
    /// A number, in decimal.
    Number(usize),
}

/// At most this many pieces make a rule.
pub(crate) const PIECES: usize = 5;

impl<'a> Rule<'a> {
    /// The rule's words, in order; [`Piece::Text("")`](Piece::Text) pads the end.
    pub(crate) const fn pieces(&self) -> [Piece<'a>; PIECES] {
        use Piece::{Number, Text};
        let end = Text("");
        match *self {
            Rule::Deeper { max } => [
                Text("nesting deeper than "),
                Number(max),
                Text(" levels"),
                end,
                end,
            ],
            Rule::MoreThan { max, what } => {
                [Text("more than "), Number(max), Text(" "), Text(what), end]
            }
            Rule::Expands { max } => [
                Text("the schema expands past "),
                Number(max),
                Text(" schemas as its references are followed"),
                end,
                end,
            ],
            Rule::Combinations { max } => [
                Text("more than "),
                Number(max),
                Text(
                    " combinations of the objects it composes (each flattened enum multiplies \
                     them)",
                ),
                end,
                end,
            ],
            Rule::BooleanSchema => [
                Text("a boolean schema (`true`: any value, `false`: none) has no equivalent here"),
                end,
                end,
                end,
                end,
            ],
            Rule::PropertiesNotObject => {
                [Text("`properties` must be an object"), end, end, end, end]
            }
            Rule::ItemsOfAnyType => [
                Text("array items of any type have no equivalent here"),
                end,
                end,
                end,
                end,
            ],
            Rule::Map { because } => [
                Text(
                    "a map (an object whose keys are open: `additionalProperties`) has no \
                     equivalent here, ",
                ),
                Text(because),
                end,
                end,
                end,
            ],
            Rule::KeyPattern => [
                Text(
                    "a map whose keys must match a pattern (`patternProperties`, as integer keys \
                     must) has no equivalent here",
                ),
                end,
                end,
                end,
                end,
            ],
            Rule::NotArray { keyword } => [
                Text("`"),
                Text(keyword),
                Text("` must be an array"),
                end,
                end,
            ],
            Rule::RootUnion => [
                Text("the root must be an object, not a union"),
                end,
                end,
                end,
                end,
            ],
            Rule::AnyOfBesideOneOf => [
                Text("`anyOf` beside `oneOf` has no equivalent here"),
                end,
                end,
                end,
                end,
            ],
            Rule::AllOf => [
                Text(
                    "`allOf` with several schemas that are not all objects has no equivalent \
                     here",
                ),
                end,
                end,
                end,
                end,
            ],
            Rule::StringEnumsOnly => [
                Text("only strings can be enumerated here"),
                end,
                end,
                end,
                end,
            ],
            Rule::AnyType => [
                Text(
                    "a value of any type (a schema without `type`, such as `serde_json::Value`) \
                     has no equivalent here",
                ),
                end,
                end,
                end,
                end,
            ],
            Rule::UnionOfTypes => [
                Text("a union of several types has no equivalent in one `type`"),
                end,
                end,
                end,
                end,
            ],
            Rule::TupleOfTypes => [
                Text(
                    "a tuple of different types (`prefixItems`) has no equivalent here, where an \
                     array has one item type",
                ),
                end,
                end,
                end,
                end,
            ],
            Rule::Recursive { reference } => {
                let [a, b] = reference.pieces();
                [
                    Text("the recursive type `"),
                    a,
                    b,
                    Text("` has no equivalent here"),
                    end,
                ]
            }
            Rule::RecursiveInlined { reference } => {
                let [a, b] = reference.pieces();
                [
                    Text("the recursive type `"),
                    a,
                    b,
                    Text("` cannot be inlined"),
                    end,
                ]
            }
            Rule::Unresolved { reference } => {
                let [a, b] = reference.pieces();
                [
                    Text("`$ref` `"),
                    a,
                    b,
                    Text("` does not resolve inside the schema"),
                    end,
                ]
            }
        }
    }
}

impl<'a> Reference<'a> {
    const fn pieces(&self) -> [Piece<'a>; 2] {
        match *self {
            Reference::Text(text) => [Piece::Text(text), Piece::Text("")],
            Reference::Definition(name) => [Piece::Text("#/$defs/"), Piece::Text(name)],
        }
    }
}

impl fmt::Display for Rule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in self.pieces() {
            match piece {
                Piece::Text(text) => f.write_str(text)?,
                Piece::Number(number) => write!(f, "{number}")?,
            }
        }
        Ok(())
    }
}

impl From<Rule<'_>> for String {
    fn from(rule: Rule<'_>) -> String {
        rule.to_string()
    }
}
