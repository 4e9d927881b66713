//! Gemini `parameters`: its `Schema` type, an OpenAPI 3.0 subset — one type per schema
//! (`nullable` for `null`), string enumerations, `anyOf`, no `$ref` (every reference inlined, so
//! no recursive type), no map, and its own keywords and formats only.
//!
//! The Developer API's `Schema` (<https://ai.google.dev/api/caching#Schema>) has neither
//! `additionalProperties` nor `$ref`/`$defs` (Vertex AI's has them), and the `google-genai`
//! package refuses `additionalProperties` for a Developer API client ("only supported in ...
//! Agent Platform mode, not in Gemini Developer API mode"): an object whose keys are open (a
//! map) cannot be said here, where `parametersJsonSchema` ([`super::gemini_json_schema`]) says
//! it.

use super::spec::{Limits, Maps, Others, Patterns, Refs, Rules, Tuples, TypeUnions};

/// Keywords of Gemini's `Schema`.
const KEYWORDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "minLength",
    "maxLength",
    "pattern",
    "title",
    "minProperties",
    "maxProperties",
    "propertyOrdering",
    "default",
];

/// Formats Gemini accepts.
const FORMATS: &[&str] = &["enum", "date-time", "int32", "int64", "float", "double"];

pub(super) const RULES: Rules = Rules {
    canonical: false,
    keywords: Some(KEYWORDS),
    others: Others::Dropped,
    formats: Some(FORMATS),
    closed_objects: false,
    maps: Maps::Refused {
        because: "where `Schema` has no `additionalProperties` (the Developer API's)",
    },
    closed_marker: false,
    all_required: false,
    tuples: Tuples::OneType,
    refs: Refs::Inline,
    type_unions: TypeUnions::Nullable,
    type_required: true,
    const_as_enum: true,
    string_enums: true,
    one_of_as_any_of: true,
    patterns: Patterns::Any,
    all_of: false,
    max_min_items: None,
    limits: Limits::NONE,
};
