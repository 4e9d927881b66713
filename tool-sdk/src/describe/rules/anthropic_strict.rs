//! Anthropic tool use with `strict: true`, after Anthropic's structured outputs documentation
//! (<https://platform.claude.com/docs/en/build-with-claude/structured-outputs>, "JSON Schema
//! limitations"): objects closed (`additionalProperties: false`), `$ref`s to `$defs` but no
//! recursive type, `anyOf`, `allOf` without a `$ref` in it, enumerations of plain values, a set
//! of string formats, `pattern` without backreferences, lookaround or word boundaries, and no
//! numeric, length or count bounds but `minItems` of 0 or 1. A schema using what it does not
//! take is answered 400, so what it does not take is told in the description instead, as
//! Anthropic's own SDK does (`{minimum: 1, maximum: 10}`), so the model may still follow it.

use super::spec::{Limits, Maps, Others, Patterns, Refs, Rules, Tuples, TypeUnions};

/// Keywords strict tool use accepts.
const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "anyOf",
    "enum",
    "const",
    "description",
    "title",
    "$ref",
    "$defs",
    "pattern",
    "format",
];

/// String formats strict tool use accepts.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

pub(super) const RULES: Rules = Rules {
    canonical: false,
    keywords: Some(KEYWORDS),
    others: Others::Described,
    formats: Some(FORMATS),
    closed_objects: true,
    maps: Maps::Refused {
        because: "where every object must be closed",
    },
    closed_marker: true,
    all_required: false,
    tuples: Tuples::OneType,
    refs: Refs::Stay { recursion: false },
    type_unions: TypeUnions::Kept,
    type_required: true,
    const_as_enum: false,
    string_enums: false,
    one_of_as_any_of: true,
    patterns: Patterns::Plain,
    all_of: true,
    max_min_items: Some(1),
    limits: Limits::NONE,
};
