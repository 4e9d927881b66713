//! The arguments struct of a tool: one field per schema parameter, described by schemars'
//! derive (through the runtime crate's re-export) and decoded by the impl of
//! [`decoder`](super::decoder).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use crate::expand::decoder::decoder;
use crate::expand::doc::tool_summary;
use crate::model::{Argument, DefaultValue, Param, ToolDef};
use crate::resolve::path_text;

/// The function that gives the value of `#[arg(default = expr)]` for parameter `name`, an
/// associated function of the arguments struct.
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
///
/// Beside a function (`#[tool]`, `#[tools]`) the struct is public to whoever sees the function,
/// so a compensating action can name it (`BookFlightArgs`) and read its fields: it carries the
/// function's visibility, on itself and on each field, and documentation. A documentation
/// comment would also become a description in the schema, so schemars is told to take none
/// from the struct's, nor from a field's that is generated rather than the parameter's own.
pub(crate) fn args_struct(def: &ToolDef, private: &TokenStream) -> TokenStream {
    let ident = &def.args_ident;
    let vis = &def.vis;
    let schemars_path = format!("{}::schemars", path_text(private));
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    for (param, argument) in def.arguments() {
        let name = &param.ident;
        let ty = field_type(param, argument);
        let wire = &argument.wire_name;
        let doc = match &argument.description {
            Some(description) => quote!(#[doc = #description]),
            None => {
                let doc = format!("The argument `{wire}`.");
                quote!(#[doc = #doc] #[schemars(description = "")])
            }
        };
        let default = match &argument.default {
            None => None,
            Some(DefaultValue::Trait) => Some(quote!(#[serde(default)])),
            Some(DefaultValue::Expr(expr)) => {
                let function = default_fn_ident(&name.unraw());
                let function_path = format!("{ident}::{function}");
                defaults.push(quote! {
                    fn #function() -> #ty {
                        #expr
                    }
                });
                Some(quote!(#[serde(default = #function_path)]))
            }
        };
        // serde names a field after its identifier (without `r#`) unless told otherwise.
        let rename = (name.unraw() != wire).then(|| quote!(#[serde(rename = #wire)]));
        fields.push(quote! {
            #doc
            #rename
            #default
            #vis #name: #ty
        });
    }
    let defaults = (!defaults.is_empty()).then(|| {
        quote! {
            #[automatically_derived]
            impl #ident {
                #(#defaults)*
            }
        }
    });
    let doc = struct_doc(def);
    // The decoder comes first: rustc reports in source order, so its error that says what a tool
    // argument needs comes before the one schemars' derive adds for the same type. The `serde`
    // attributes are read by schemars' derive (property names, defaults, no other properties).
    let decoder = decoder(def, private);
    let debug = debug_impl(def, private);
    quote! {
        #decoder
        #[doc = #doc]
        #[derive(#private::schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        #[schemars(crate = #schemars_path, title = "", description = "")]
        #vis struct #ident {
            #(#fields,)*
        }
        #defaults
        #debug
    }
}

/// The arguments struct's documentation: which tool it belongs to, what it is for, and the
/// tool's description and parameters.
fn struct_doc(def: &ToolDef) -> String {
    format!(
        "The arguments of tool `{}`, decoded from a model's call: what its compensating action \
         (`#[tool(compensate = action)]`) receives, as one value, with the tool's output.\n\n# {}",
        def.name,
        tool_summary(def, 2)
    )
}

/// `Debug` for the arguments struct, which a crate under `missing_debug_implementations` needs:
/// each field shown when its type is `Debug`, as `_` otherwise (by autoref dispatch at the
/// concrete type, see `__private::DebugArgument`).
fn debug_impl(def: &ToolDef, private: &TokenStream) -> TokenStream {
    let ident = &def.args_ident;
    let name = ident.to_string();
    let fields = def.arguments().map(|(param, _)| {
        let field = &param.ident;
        let label = field.unraw().to_string();
        quote! {
            .field(#label, {
                #[allow(unused_imports)]
                use #private::{DebugKind as _, OpaqueKind as _};
                (&&#private::Wrap::of(&self.#field)).__tool_debug_kind().view(&self.#field)
            })
        }
    });
    quote! {
        #[automatically_derived]
        impl ::core::fmt::Debug for #ident {
            fn fmt(&self, __formatter: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                __formatter.debug_struct(#name)
                    #(#fields)*
                    .finish()
            }
        }
    }
}
