//! The arguments struct of a tool: one field per schema parameter, described by schemars'
//! derive (through the runtime crate's re-export) and decoded by the impl of
//! [`decoder`](super::decoder).

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

use crate::expand::decoder::decoder;
use crate::expand::field::{default_fn_ident, field_type};
use crate::model::{DefaultValue, ToolDef};
use crate::resolve::path_text;

/// The arguments struct, its decoder and its default functions.
///
/// Beside a function (`#[tool]`, `#[tools]`) the struct is public to whoever sees the function,
/// so a compensating action can name it (`BookFlightArgs`) and read its fields: it carries the
/// function's visibility, on itself and on each field, and documentation in rustdoc. A field's
/// documentation is the parameter's own: schemars makes it the property's description.
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
        // An undocumented argument stays so: a made-up doc would be one more description for
        // schemars to write, and the struct allows `missing_docs` for it.
        let doc = argument
            .description
            .as_ref()
            .map(|description| quote!(#[doc = #description]));
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
    // Not `Debug`: an impl per tool is code rustc compiles for every tool of a crate whether or
    // not anything prints it, and fields of any type would need autoref dispatch besides; a
    // compensating action reads the fields it needs.
    // The documentation is for rustdoc alone (`cfg(doc)`): a build carries no text for it, and
    // schemars' derive, which would take it for the schema's title and description, never sees
    // it where a schema is made.
    quote! {
        #decoder
        #[cfg_attr(doc, doc = #doc)]
        #[allow(missing_docs, missing_debug_implementations)]
        #[derive(#private::schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        #[schemars(crate = #schemars_path)]
        #vis struct #ident {
            #(#fields,)*
        }
        #defaults
    }
}

/// The arguments struct's documentation: which tool it belongs to and what it is for (the tool
/// type's documentation describes the parameters).
fn struct_doc(def: &ToolDef) -> String {
    format!(
        "The arguments of tool `{}`, decoded from a model's call: what its compensating action \
         (`#[tool(compensate = action)]`) receives, as one value, with the tool's output.",
        def.name
    )
}
