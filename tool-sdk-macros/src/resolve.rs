//! The one place that decides how generated code names the runtime crate.

use proc_macro2::{Span, TokenStream};
use proc_macro_crate::{crate_name, FoundCrate};
use quote::quote;

use crate::symbol::RUNTIME_PACKAGE;

/// The path of the runtime crate: the user's `crate = path` if given, else the name under
/// which the current package depends on `tool-sdk` (renames included), always rooted with `::`.
///
/// Inside `tool-sdk` itself (its doctests and examples) the crate declares
/// `extern crate self as tool_sdk`, so `::tool_sdk` resolves there too.
pub(crate) fn runtime_crate(explicit: Option<&syn::Path>) -> TokenStream {
    if let Some(path) = explicit {
        return quote!(#path);
    }
    match crate_name(RUNTIME_PACKAGE) {
        Ok(FoundCrate::Name(name)) => {
            let ident = syn::Ident::new(&name, Span::call_site());
            quote!(::#ident)
        }
        // `Itself`, or no manifest to read (a build outside cargo): the canonical name.
        Ok(FoundCrate::Itself) | Err(_) => quote!(::tool_sdk),
    }
}
