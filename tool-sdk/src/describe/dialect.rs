//! The schema dialects of the providers and hosts.

/// A provider's schema dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI function calling with `strict: true` (Structured Outputs): every property
    /// required, optional ones as a union with `null`, `additionalProperties: false` on every
    /// object, only the supported keywords, no `$ref` beside other keys, at most 5,000
    /// properties and 10 levels of nesting.
    OpenAiStrict,
    /// OpenAI function calling without `strict`: the canonical schema, root an object.
    OpenAi,
    /// Anthropic Messages `input_schema`: the canonical schema, root an object.
    Anthropic,
    /// Anthropic with `strict: true`: no numeric or length bounds, `additionalProperties:
    /// false` on every object.
    AnthropicStrict,
    /// Gemini `parameters`: its `Schema` type, the OpenAPI 3.0 subset (no `type` arrays, no
    /// `$ref`, no maps, `nullable` instead of `null` unions, only its keywords). For the `v1`
    /// API.
    Gemini,
    /// Gemini `parametersJsonSchema`: JSON Schema as its `JSONSchema` type has it (`$ref`s,
    /// unions of types, maps, bounds, values of any type; no `const`), and tuples as
    /// `prefixItems`. For the `v1beta` API.
    GeminiJsonSchema,
    /// MCP `inputSchema`: the canonical schema, root an object.
    Mcp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 7] = [
        Dialect::OpenAiStrict,
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ];

    /// Whether the dialect takes the canonical schema as it is (its root an object): no copy
    /// is made to send it.
    pub fn takes_canonical(self) -> bool {
        matches!(self, Dialect::OpenAi | Dialect::Anthropic | Dialect::Mcp)
    }

    /// Its name, as `Debug` writes it.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Dialect::OpenAiStrict => "OpenAiStrict",
            Dialect::OpenAi => "OpenAi",
            Dialect::Anthropic => "Anthropic",
            Dialect::AnthropicStrict => "AnthropicStrict",
            Dialect::Gemini => "Gemini",
            Dialect::GeminiJsonSchema => "GeminiJsonSchema",
            Dialect::Mcp => "Mcp",
        }
    }

    /// Its place in [`ALL`](Self::ALL), for tables with an entry per dialect.
    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}
