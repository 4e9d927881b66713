//! Gemini `parametersJsonSchema` (the `v1beta` API): JSON Schema, as `google-genai`'s
//! `JSONSchema` type has it — unions of types, `anyOf` and `oneOf`, `$ref`s to `$defs`, maps as
//! `additionalProperties`, enumerations of any value, bounds, a value of any type (a schema
//! without `type`; `true` said as `{}`) — and tuples as `prefixItems`, but no `const` (said as a
//! one-value `enum`) and no other keyword.
//!
//! `prefixItems` is not in the package's type, but the API takes it: Google lists it among the
//! JSON Schema keywords the Gemini API supports
//! (<https://blog.google/technology/developers/gemini-api-structured-outputs/>), as does the
//! API reference's list of the JSON Schema it reads
//! (<https://ai.google.dev/api/generate-content#generationconfig>, `responseJsonSchema`).

use super::spec::{Limits, Maps, Others, Patterns, Refs, Rules, Tuples, TypeUnions};

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
    "prefixItems",
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
    tuples: Tuples::Kept,
    refs: Refs::Stay { recursion: true },
    type_unions: TypeUnions::Kept,
    type_required: false,
    const_as_enum: true,
    string_enums: false,
    one_of_as_any_of: false,
    patterns: Patterns::Any,
    all_of: false,
    max_min_items: None,
    limits: Limits::NONE,
};
