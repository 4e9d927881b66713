//! Gemini `parametersJsonSchema` (the `v1beta` API): JSON Schema, as `google-genai`'s
//! `JSONSchema` type has it — unions of types, `anyOf` and `oneOf`, `$ref`s to `$defs`, maps as
//! `additionalProperties`, enumerations of any value, and bounds — but no `const` (said as a
//! one-value `enum`), no `prefixItems` (a tuple of one type said as `items` with its length),
//! and no other keyword.

use super::spec::{Limits, Maps, Others, Refs, Rules, TypeUnions};

/// Keywords of `google-genai`'s `JSONSchema`.
const KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "default",
    "items",
    "minItems",
    "maxItems",
    "enum",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "additionalProperties",
    "anyOf",
    "uniqueItems",
    "$ref",
    "$defs",
    "oneOf",
];

pub(super) const RULES: Rules = Rules {
    canonical: false,
    keywords: Some(KEYWORDS),
    others: Others::Dropped,
    formats: None,
    closed_objects: false,
    maps: Maps::Kept,
    closed_marker: true,
    all_required: false,
    refs: Refs::Stay { recursion: true },
    type_unions: TypeUnions::Kept,
    type_required: true,
    const_as_enum: true,
    string_enums: false,
    one_of_as_any_of: false,
    max_min_items: None,
    limits: Limits::NONE,
};
