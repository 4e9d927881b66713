//! Register: a [`ToolRegistry`] holds tools by name, in insertion order, and dispatches calls;
//! tools also come at run time from a JSON Schema and a closure (`DynamicTool`, feature
//! `dynamic`) and from
//! [`ToolProvider`]s. Names follow one rule ([`validate_name`]); an unknown name gets the closest
//! registered ones as suggestions.
#![doc = include_str!("guide.md")]

mod call;
#[cfg(feature = "dynamic")]
mod dynamic;
mod error;
mod into_registry;
mod name;
pub(crate) mod name_index;
mod output_check;
mod provider;
mod registry;
mod slot;
pub(crate) mod suggest;

pub use call::CallFuture;
#[cfg(feature = "mcp")]
pub(crate) use dynamic::CallScope;
#[cfg(feature = "dynamic")]
pub use dynamic::DynamicTool;
pub use error::RegistryError;
pub use into_registry::IntoRegistry;
pub use name::{provider_name, validate_name};
pub use provider::{ProviderFuture, ToolProvider};
pub use registry::ToolRegistry;
