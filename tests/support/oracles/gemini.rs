//! What the Gemini API refuses that the `google-genai` package lets through: rules of Google's
//! documentation, each listed with the tool, the pointer, the rule and the page that states it.
//!
//! A refusal of the Gemini dialects must be one the package also makes (its processing for the
//! Developer API and its `Schema` type, or its `JSONSchema` type: `python::gemini_schema_errors`),
//! or one listed here. Nothing here is shared with `tool_sdk::describe`.

/// A documented rule of the Gemini API that refuses a schema the package takes.
#[derive(Debug, Clone, Copy)]
pub struct Documented {
    /// The dialect, as `Debug` names it: `"Gemini"` (`parameters`) or `"GeminiJsonSchema"`
    /// (`parametersJsonSchema`).
    pub dialect: &'static str,
    /// The corpus tool.
    pub tool: &'static str,
    /// The pointer of the refusal, along the tool's parameters.
    pub pointer: &'static str,
    /// Words of the refusal's rule.
    pub rule: &'static str,
    /// What the documentation says.
    pub says: &'static str,
    /// Where.
    pub url: &'static str,
}

/// The Developer API's `Schema` reference.
const SCHEMA: &str = "https://ai.google.dev/api/caching#Schema";

/// Every documented refusal of the corpus.
pub const DOCUMENTED: &[Documented] = &[
    Documented {
        dialect: "Gemini",
        tool: "documented_value",
        pointer: "/properties/value/properties/body",
        rule: "a value of any type",
        says: "`type` is required in a `Schema` (\"Required. Data type.\"; the package's type \
               leaves it optional)",
        url: SCHEMA,
    },
    Documented {
        dialect: "Gemini",
        tool: "tree",
        pointer: "/properties/value/properties/children/items",
        rule: "the recursive type `#/$defs/Tree` cannot be inlined",
        says: "the Developer API's `Schema` has no `$ref` or `$defs` (Vertex AI's has them), so \
               a type can only be written out, and a recursive one never ends (the package's \
               processing cuts it to `{}`, which says another type)",
        url: SCHEMA,
    },
    Documented {
        dialect: "Gemini",
        tool: "list",
        pointer: "/properties/value/properties/next/anyOf/0",
        rule: "the recursive type `#/$defs/List` cannot be inlined",
        says: "as for `tree`: no `$ref` in the Developer API's `Schema`",
        url: SCHEMA,
    },
    Documented {
        dialect: "GeminiJsonSchema",
        tool: "dangling",
        pointer: "/properties/value",
        rule: "does not resolve",
        says: "a `$ref` names a schema that exists; JSON Schema has no meaning for one that does \
               not (the package's type does not follow references)",
        url:
            "https://json-schema.org/draft/2020-12/json-schema-core#name-direct-references-with-ref",
    },
];

/// The documented rule behind a refusal of `tool` in `dialect` at `pointer` by `rule`, if any.
pub fn documented(
    dialect: &str,
    tool: &str,
    pointer: &str,
    rule: &str,
) -> Option<&'static Documented> {
    DOCUMENTED.iter().find(|entry| {
        entry.dialect == dialect
            && entry.tool == tool
            && entry.pointer == pointer
            && rule.contains(entry.rule)
    })
}
