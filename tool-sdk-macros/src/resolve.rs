//! The one place that decides how generated code names the runtime crate.
//!
//! Generated code names nothing of the runtime crate but its `__private` module: whatever it
//! needs is re-exported there, so the runtime crate can move its modules without the macros
//! changing, and a macro crate of another version fails at the version marker, by name.

use proc_macro2::{Span, TokenStream};
use proc_macro_crate::{crate_name, FoundCrate};
use quote::quote;

use crate::symbol::{PRIVATE_MODULE, RUNTIME_PACKAGE};

/// The path of the runtime crate's `__private` module: under the user's `crate = path` if
/// given, else under the name by which the current package depends on `tool-sdk` (renames
/// included), always rooted with `::`.
///
/// Inside `tool-sdk` itself (its doctests and examples) the crate declares
/// `extern crate self as tool_sdk`, so `::tool_sdk` resolves there too.
pub(crate) fn private_module(explicit: Option<&syn::Path>) -> TokenStream {
    let private = syn::Ident::new(PRIVATE_MODULE, Span::call_site());
    if let Some(path) = explicit {
        return quote!(#path::#private);
    }
    let root = syn::Ident::new(&runtime_crate_name(), Span::call_site());
    quote!(::#root::#private)
}

/// The name under which the package being compiled knows the runtime crate. Read from its
/// manifest's text when the dependency has the package's own name, the common case (see
/// [`settings`](crate::settings)); otherwise asked of proc-macro-crate, which runs cargo (see
/// [`manifest`](crate::manifest)).
fn runtime_crate_name() -> String {
    const CANONICAL: &str = "tool_sdk";
    let itself = std::env::var("CARGO_PKG_NAME").is_ok_and(|name| name == RUNTIME_PACKAGE);
    if itself || crate::settings::settings().runtime_by_name {
        return CANONICAL.to_owned();
    }
    match crate_name(RUNTIME_PACKAGE) {
        Ok(FoundCrate::Name(name)) => name,
        // `Itself`, or no manifest to read (a build outside cargo): the canonical name.
        Ok(FoundCrate::Itself) | Err(_) => CANONICAL.to_owned(),
    }
}

/// The path of `private_module` as text, for the attributes of other derives that take a path
/// in a string (`#[schemars(crate = "...")]`). Built from the path's parts rather than from its
/// tokens' printed form, whose spacing is not specified.
pub(crate) fn path_text(path: &TokenStream) -> String {
    match syn::parse2::<syn::Path>(path.clone()) {
        Ok(path) => display_path(&path),
        // Only paths built above reach this function; they always parse.
        Err(_) => String::new(),
    }
}

/// `a::b::c` (with a leading `::` when the path has one), generic arguments left out.
pub(crate) fn display_path(path: &syn::Path) -> String {
    let mut text = String::new();
    if path.leading_colon.is_some() {
        text.push_str("::");
    }
    for (i, segment) in path.segments.iter().enumerate() {
        if i > 0 {
            text.push_str("::");
        }
        text.push_str(&segment.ident.to_string());
    }
    text
}

/// The item of `__private` every expansion names, so that a macro crate and a runtime crate of
/// different versions fail to compile with an error naming the version this one expects:
/// `VERSION_0_1_0` for 0.1.0 (every character that cannot be in an identifier becomes `_`).
pub(crate) fn version_marker() -> syn::Ident {
    syn::Ident::new(
        &version_marker_name(env!("CARGO_PKG_VERSION")),
        Span::call_site(),
    )
}

fn version_marker_name(version: &str) -> String {
    let version: String = version
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("VERSION_{version}")
}

/// `<private>::VERSION_x_y_z`, a `()` that fails to compile, naming the version, when the
/// runtime crate is of another version than this macro crate: the tail of a `const _` block an
/// expansion has anyway, since a const item of its own per tool costs rustc a const evaluation.
pub(crate) fn version_value(private: &TokenStream) -> TokenStream {
    let marker = version_marker();
    quote!(#private::#marker)
}

/// `const _: () = <private>::VERSION_x_y_z;`, for an expansion with no `const _` block.
pub(crate) fn version_check(private: &TokenStream) -> TokenStream {
    let value = version_value(private);
    quote!(const _: () = #value;)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_marker_names_this_crates_version() {
        assert_eq!(version_marker_name("0.1.0"), "VERSION_0_1_0");
        assert_eq!(version_marker_name("1.20.3-rc.1"), "VERSION_1_20_3_rc_1");
        assert_eq!(
            version_marker().to_string(),
            format!(
                "VERSION_{}",
                env!("CARGO_PKG_VERSION").replace(['.', '-', '+'], "_")
            )
        );
    }

    #[test]
    fn paths_are_written_from_their_parts() {
        let explicit: syn::Path = syn::parse_quote!(::my_sdk);
        assert_eq!(
            path_text(&private_module(Some(&explicit))),
            "::my_sdk::__private"
        );
        let relative: syn::Path = syn::parse_quote!(sdk::inner);
        assert_eq!(
            path_text(&private_module(Some(&relative))),
            "sdk::inner::__private"
        );
    }
}
