//! The dialects that take the canonical schema as it is (OpenAI without `strict`, Anthropic
//! without `strict`, MCP): JSON Schema 2020-12, its root an object.

use super::spec::{Limits, Maps, Others, Patterns, Refs, Rules, Tuples, TypeUnions};

pub(super) const RULES: Rules = Rules {
    canonical: true,
    keywords: None,
    others: Others::Kept,
    formats: None,
    closed_objects: false,
    maps: Maps::Kept,
    closed_marker: true,
    all_required: false,
    tuples: Tuples::Kept,
    refs: Refs::Stay { recursion: true },
    type_unions: TypeUnions::Kept,
    type_required: false,
    const_as_enum: false,
    string_enums: false,
    one_of_as_any_of: false,
    patterns: Patterns::Any,
    all_of: true,
    max_min_items: None,
    limits: Limits::NONE,
};
