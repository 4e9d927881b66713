//! What each dialect takes, as data the one walker ([`super::walk`]) reads: which keywords stay,
//! whether objects are closed and every property required, where `$ref`s go, how unions of
//! types are said, and the limits. A dialect is a value of [`Rules`], not a branch of the walk.

mod anthropic_strict;
mod canonical;
mod gemini;
mod gemini_json_schema;
mod openai_strict;
mod spec;

pub use openai_strict::{MAX_DEPTH as OPENAI_MAX_DEPTH, MAX_PROPERTIES as OPENAI_MAX_PROPERTIES};
pub(crate) use spec::{Maps, Others, Patterns, Refs, Rules, Tuples, TypeUnions};

use crate::describe::Dialect;

/// The rules of `dialect`.
pub(crate) const fn of(dialect: Dialect) -> &'static Rules {
    match dialect {
        Dialect::OpenAi | Dialect::Anthropic | Dialect::Mcp => &canonical::RULES,
        Dialect::OpenAiStrict => &openai_strict::RULES,
        Dialect::AnthropicStrict => &anthropic_strict::RULES,
        Dialect::Gemini => &gemini::RULES,
        Dialect::GeminiJsonSchema => &gemini_json_schema::RULES,
    }
}
