//! Gemini `parameters`: its `Schema` type, an OpenAPI 3.0 subset — one type per schema
//! (`nullable` for `null`), string enumerations, `anyOf`, maps as `additionalProperties`, no
//! `$ref` (every reference inlined, so no recursive type), and its own keywords and formats
//! only.

use super::spec::{Limits, Others, Refs, Rules, TypeUnions};

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
    "additionalProperties",
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
    closed_marker: false,
    all_required: false,
    refs: Refs::Inline,
    type_unions: TypeUnions::Nullable,
    type_required: true,
    const_as_enum: true,
    string_enums: true,
    one_of_as_any_of: true,
    max_min_items: None,
    limits: Limits::NONE,
};
