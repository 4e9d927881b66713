//! The shape of a dialect's rules: what the walk reads.

/// What a dialect takes.
#[derive(Debug)]
pub(crate) struct Rules {
    /// The schema is sent as it is: the walk only checks it (every `$ref` resolves).
    pub(crate) canonical: bool,
    /// Keywords kept as they are (`None`: every keyword).
    pub(crate) keywords: Option<&'static [&'static str]>,
    /// What becomes of a keyword outside `keywords`.
    pub(crate) others: Others,
    /// `format`s kept (`None`: every one). A format is a hint: another one is dropped.
    pub(crate) formats: Option<&'static [&'static str]>,
    /// Every object gets `additionalProperties: false`.
    pub(crate) closed_objects: bool,
    /// Whether a map (an object whose keys are open: `additionalProperties` other than
    /// `false`) can be said.
    pub(crate) maps: Maps,
    /// Whether `additionalProperties: false` is written out (else left to the default).
    pub(crate) closed_marker: bool,
    /// Every property is required; one the schema lets the model leave out becomes nullable.
    pub(crate) all_required: bool,
    /// How a tuple (`prefixItems`) is said.
    pub(crate) tuples: Tuples,
    /// Where `$ref`s go.
    pub(crate) refs: Refs,
    /// How a union of types (`"type": ["string", "null"]`) is said.
    pub(crate) type_unions: TypeUnions,
    /// Every schema must say its type (or be an enumeration, a union, or a reference): a value
    /// of any type cannot be said. Where it need not, `true` (any value) is said as `{}`.
    pub(crate) type_required: bool,
    /// `const` said as a one-value `enum`.
    pub(crate) const_as_enum: bool,
    /// `enum`s (and `const`s) of strings only.
    pub(crate) string_enums: bool,
    /// `oneOf` said as `anyOf` (schemars writes `oneOf` for enum variants, which never
    /// overlap).
    pub(crate) one_of_as_any_of: bool,
    /// Which regular expressions `pattern` may hold; another is treated as a keyword outside
    /// the set.
    pub(crate) patterns: Patterns,
    /// Whether `allOf` with several schemas that are not all objects (which are merged into
    /// one) is kept, each schema lowered and a `$ref` among them inlined.
    pub(crate) all_of: bool,
    /// The most `minItems` may say; a larger one is treated as a keyword outside the set.
    pub(crate) max_min_items: Option<u64>,
    /// The limits of the dialect.
    pub(crate) limits: Limits,
}

/// What becomes of a keyword a dialect does not take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Others {
    /// Kept (canonical dialects take every keyword).
    Kept,
    /// Dropped.
    Dropped,
    /// Told in the description, as `{minimum: 1, maximum: 10}`, so the model may still follow
    /// it (what Anthropic's own SDK does).
    Described,
}

/// Whether a dialect can say a map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Maps {
    /// Kept, its values' schema lowered.
    Kept,
    /// Refused, `because` ending the rule (`"where every object must be closed"`).
    Refused { because: &'static str },
}

/// Which regular expressions a dialect's `pattern` may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Patterns {
    /// Any.
    Any,
    /// None with a backreference, a lookaround or a word boundary.
    Plain,
}

/// How a dialect says a tuple (`prefixItems`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tuples {
    /// As JSON Schema does: `prefixItems`, a schema for each position.
    Kept,
    /// Arrays have one item type: a tuple of one type is `items` (its length in `minItems`
    /// and `maxItems`), one of different types cannot be said.
    OneType,
}

/// Where a dialect's `$ref`s go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refs {
    /// A `$ref` standing alone stays, its definition in `$defs`; one beside other keywords
    /// (a documented field) is inlined. `recursion`: a type may refer to itself.
    Stay { recursion: bool },
    /// Every `$ref` is inlined; a recursive type cannot be.
    Inline,
}

/// How a dialect says a union of types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TypeUnions {
    /// As JSON Schema does: `"type": ["string", "null"]`.
    Kept,
    /// One type, with `"nullable": true` for `null` (OpenAPI 3.0).
    Nullable,
}

/// The limits of a dialect, each `None` when it has none.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Deepest nesting of objects and arrays.
    pub(crate) max_depth: Option<usize>,
    /// Most properties in all the objects of one schema.
    pub(crate) max_properties: Option<usize>,
    /// Most values in all the enumerations of one schema.
    pub(crate) max_enum_values: Option<usize>,
}

impl Limits {
    /// No limit at all.
    pub(crate) const NONE: Limits = Limits {
        max_depth: None,
        max_properties: None,
        max_enum_values: None,
    };
}
