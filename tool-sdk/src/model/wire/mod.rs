//! Wire formats of the providers: serde types for tool definitions, tool calls and tool results
//! as OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and Gemini write them, with
//! conversions to and from this crate's types.
//!
//! Each definition is built from a [`ToolDefinition`](crate::define::ToolDefinition) with its schema
//! lowered to the provider's dialect ([`crate::describe::lower`]).

pub mod anthropic;
pub mod gemini;
pub mod openai_chat;
pub mod openai_responses;
