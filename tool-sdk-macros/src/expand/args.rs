//! The arguments struct of a tool: one field per schema parameter, described by schemars'
//! derive (through the runtime crate's re-export) and decoded by the impl of
//! [`decoder`](super::decoder).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use crate::expand::decoder::decoder;
use crate::model::{Argument, DefaultValue, Param, ToolDef};
use crate::resolve::path_text;

/// Name of the generated arguments struct (inside the tool's own `const _` block).
pub(crate) fn args_ident() -> syn::Ident {
    format_ident!("__ToolArgs")
}

/// The function that gives the value of `#[arg(default = expr)]` for parameter `name`.
pub(crate) fn default_fn_ident(name: &syn::Ident) -> syn::Ident {
    format_ident!("__tool_default_{}", name)
}

/// The type a parameter is decoded as: the type itself, or `T::Owned` for `&T`.
pub(crate) fn field_type(param: &Param, argument: &Argument) -> TokenStream {
    match &argument.borrowed {
        Some(inner) => quote_spanned!(inner.span()=> <#inner as ::std::borrow::ToOwned>::Owned),
        None => param.ty.to_token_stream(),
    }
}

/// The arguments struct, its decoder and its default functions.
pub(crate) fn args_struct(def: &ToolDef, private: &TokenStream) -> TokenStream {
    let ident = args_ident();
    let schemars_path = format!("{}::schemars", path_text(private));
    let mut fields = Vec::new();
    let mut extras = Vec::new();
    for (param, argument) in def.arguments() {
        let name = &param.ident;
        let ty = field_type(param, argument);
        let wire = &argument.wire_name;
        let doc = argument.description.as_ref().map(|d| quote!(#[doc = #d]));
        let default = match &argument.default {
            None => None,
            Some(DefaultValue::Trait) => Some(quote!(#[serde(default)])),
            Some(DefaultValue::Expr(expr)) => {
                let function = default_fn_ident(&name.unraw());
                let function_name = function.to_string();
                extras.push(quote! {
                    fn #function() -> #ty {
                        #expr
                    }
                });
                Some(quote!(#[serde(default = #function_name)]))
            }
        };
        // serde names a field after its identifier (without `r#`) unless told otherwise.
        let rename = (name.unraw() != wire).then(|| quote!(#[serde(rename = #wire)]));
        fields.push(quote! {
            #doc
            #rename
            #default
            #name: #ty
        });
    }
    // The decoder comes first: rustc reports in source order, so its error that says what a tool
    // argument needs comes before the one schemars' derive adds for the same type. The `serde`
    // attributes are read by schemars' derive (property names, defaults, no other properties).
    let decoder = decoder(def, private);
    quote! {
        #decoder
        #[derive(#private::schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        #[schemars(crate = #schemars_path)]
        struct #ident {
            #(#fields,)*
        }
        #(#extras)*
    }
}
