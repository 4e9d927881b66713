//! Procedural macros of [tool-sdk](https://docs.rs/tool-sdk): `#[tool]` and `#[tools]`.
//!
//! Use them through `tool_sdk`, which re-exports them and documents them; generated code names
//! everything through `tool_sdk::__private`, so a user depends on `tool-sdk` alone.
//!
//! Each macro parses its input into one model (`model.rs`), checks it collecting every error
//! with its span (`check.rs`), then generates code from the model (`expand/`).

mod check;
mod ctxt;
mod described;
mod expand;
mod manifest;
mod model;
mod parse;
mod resolve;
mod settings;
mod symbol;

use proc_macro::TokenStream;

/// Turns a free `fn` or `async fn` into a tool. Documented in `tool_sdk`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::free::expand(args.into(), input.into()).into()
}

/// Turns the `#[tool]` methods of an impl block into a tool set. Documented in `tool_sdk`.
#[proc_macro_attribute]
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::set::expand(args.into(), input.into()).into()
}

/// Defines a tool inline from a closure. Documented in `tool_sdk`.
#[proc_macro]
pub fn define_tool(input: TokenStream) -> TokenStream {
    expand::inline::expand(input.into()).into()
}

/// Describes a type's JSON Schema as `const` data, for the compile-time dialect check. Documented
/// in `tool_sdk`.
#[proc_macro_derive(Described, attributes(describe))]
pub fn derive_described(input: TokenStream) -> TokenStream {
    described::derive(input.into()).into()
}
