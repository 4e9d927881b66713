//! OpenAI function calling with `strict: true` (Structured Outputs), after OpenAI's "Supported
//! schemas": objects closed with every property required (an optional one as a union with
//! `null`), `anyOf` but no other composition, `$ref`s to `$defs` (recursion included), the
//! supported keywords and string formats only, at most 5,000 properties, 10 levels of nesting
//! and 1,000 enumeration values.

use super::spec::{Limits, Maps, Others, Patterns, Refs, Rules, Tuples, TypeUnions};

/// Most properties strict mode accepts in one schema.
pub const MAX_PROPERTIES: usize = 5_000;
/// Deepest nesting strict mode accepts.
pub const MAX_DEPTH: usize = 10;
/// Most enumeration values strict mode accepts in one schema.
const MAX_ENUM_VALUES: usize = 1_000;

/// Keywords strict mode accepts.
const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "description",
    "title",
    "$ref",
    "$defs",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// String formats strict mode accepts.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

pub(super) const RULES: Rules = Rules {
    canonical: false,
    keywords: Some(KEYWORDS),
    others: Others::Dropped,
    formats: Some(FORMATS),
    closed_objects: true,
    maps: Maps::Refused {
        because: "where every object must be closed",
    },
    closed_marker: true,
    all_required: true,
    tuples: Tuples::OneType,
    refs: Refs::Stay { recursion: true },
    type_unions: TypeUnions::Kept,
    type_required: true,
    const_as_enum: false,
    string_enums: false,
    one_of_as_any_of: true,
    patterns: Patterns::Any,
    all_of: false,
    max_min_items: None,
    limits: Limits {
        max_depth: Some(MAX_DEPTH),
        max_properties: Some(MAX_PROPERTIES),
        max_enum_values: Some(MAX_ENUM_VALUES),
    },
};
