//! The output schema a tool's definition declares, chosen by its return type.

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::model::{Callee, ToolDef};
use crate::parse::item::replace_self;

/// `.with_output_schema(..)` for the definition of a tool whose success type (`T` of
/// `Result<T, E>`, or the return type) can be named where the definition is built: the
/// schema, if the type has one, is chosen at compile time by `__private::OutputOf`. Nothing
/// for `()`, and for a type that borrows or is `impl Trait`, which name nothing with a schema.
pub(crate) fn output_schema(def: &ToolDef, private: &TokenStream) -> TokenStream {
    let Some(output) = &def.output else {
        return TokenStream::new();
    };
    let success = result_arguments(output).map_or(output, |(ok, _)| ok);
    if !nameable(success) {
        return TokenStream::new();
    }
    let mut success = success.clone();
    if let Callee::Method { self_ty, .. } = &def.callee {
        // The definition is built in a function of its own, where `Self` means nothing.
        replace_self(&mut success, self_ty);
    }
    quote_spanned! {success.span()=>
        .with_output_schema({
            #[allow(unused_imports)]
            use #private::{
                JsonOutputSchema as _, NoOutputSchema as _, OwnOutputSchema as _,
                SerializedOutputSchema as _,
            };
            (&&&&#private::OutputOf::<#success>::new()).__output_schema()
        })
    }
}

/// `T`, and `E` when written, of a return type written `Result<T, E>` or `Result<T>` (any
/// path ending in `Result`, such as `anyhow::Result<T>` or `io::Result<T>`).
pub(crate) fn result_arguments(ty: &syn::Type) -> Option<(&syn::Type, Option<&syn::Type>)> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    let mut types = arguments.args.iter().filter_map(|argument| match argument {
        syn::GenericArgument::Type(ty) => Some(ty),
        _ => None,
    });
    match (types.next(), types.next(), types.next()) {
        (Some(ok), err, None) => Some((ok, err)),
        _ => None,
    }
}

/// Whether `ty` names a type on its own: no lifetime (a fn's own or elided), no reference, no
/// `impl Trait` and no `_`.
fn nameable(ty: &syn::Type) -> bool {
    fn clean(tokens: TokenStream) -> bool {
        tokens.into_iter().all(|token| match token {
            TokenTree::Punct(punct) => !matches!(punct.as_char(), '\'' | '&'),
            TokenTree::Ident(ident) => ident != "impl" && ident != "_",
            TokenTree::Group(group) => clean(group.stream()),
            TokenTree::Literal(_) => true,
        })
    }
    clean(ty.to_token_stream())
}
