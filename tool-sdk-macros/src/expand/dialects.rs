//! The compile-time dialect check of a tool's parameters: their schema as `const` data (each
//! argument's type gives its own through `Described`), checked once per dialect chosen, with a
//! `const _` per parameter that fails, spanned at the parameter, when the refusal is inside it.
//!
//! Nothing is generated when no dialect is chosen: neither `#[tool(dialects(...))]` nor a
//! feature of the runtime crate asks for one.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::expand::field::field_type;
use crate::model::ToolDef;
use crate::symbol::DIALECT_NAMES;

/// The dialects every tool is checked against, as the runtime crate's features chose them.
fn chosen_for_every_tool() -> Vec<&'static str> {
    let chosen = [
        (cfg!(feature = "check-openai-strict"), "openai_strict"),
        (cfg!(feature = "check-anthropic-strict"), "anthropic_strict"),
        (cfg!(feature = "check-gemini"), "gemini"),
        (
            cfg!(feature = "check-gemini-json-schema"),
            "gemini_json_schema",
        ),
    ];
    chosen
        .into_iter()
        .filter(|(on, _)| *on)
        .filter_map(|(_, name)| {
            DIALECT_NAMES
                .iter()
                .find(|(known, _)| *known == name)
                .map(|(_, variant)| *variant)
        })
        .collect()
}

/// The checks of `def`'s parameters against the dialects chosen for it.
pub(crate) fn dialect_checks(def: &ToolDef, private: &TokenStream) -> TokenStream {
    let dialects: Vec<syn::Ident> = match &def.options.dialects {
        Some(dialects) => dialects.clone(),
        None => chosen_for_every_tool()
            .into_iter()
            .map(|variant| syn::Ident::new(variant, def.name_span))
            .collect(),
    };
    if dialects.is_empty() {
        return TokenStream::new();
    }
    let name = &def.name;
    let mut properties = Vec::new();
    let mut required = Vec::new();
    let mut spans: Vec<Span> = Vec::new();
    for (param, argument) in def.arguments() {
        let wire = &argument.wire_name;
        let ty = field_type(param, argument);
        let span = param.ty.span();
        let shape = if argument.unchecked {
            quote!(#private::Shape::Unchecked)
        } else {
            // Spanned at the type: a type without a description is reported there.
            quote_spanned!(span=> <#ty as #private::Described>::SHAPE)
        };
        let shape = match &argument.description {
            Some(description) => quote! {
                #private::Shape::Annotated(
                    &#shape,
                    &[(#private::Keyword::Description, #private::Shape::Str(#description))],
                )
            },
            None => shape,
        };
        let defaulted = argument.default.is_some();
        required.push(quote!((#wire, &#shape, #defaulted)));
        properties.push(quote!((#wire, #shape)));
        spans.push(param.ident.span());
    }
    let count = properties.len();
    let checks = dialects.iter().map(|dialect| {
        let verdict = format!("__CHECKED_{}", dialect.to_string().to_uppercase());
        // Every token of a parameter's check is spanned at the parameter: rustc reports a
        // failed `const` where its expression is.
        let fail = |span: Span, refused: TokenStream| {
            let verdict = syn::Ident::new(&verdict, span);
            quote_spanned! {span=>
                const _: () = if #verdict.#refused {
                    ::core::panic!("{}", #verdict.message())
                };
            }
        };
        let per_parameter = spans
            .iter()
            .enumerate()
            .map(|(index, span)| fail(*span, quote_spanned!(*span=> refused_in(#index))));
        let outside = fail(
            dialect.span(),
            quote_spanned!(dialect.span()=> refused_outside()),
        );
        let verdict = syn::Ident::new(&verdict, Span::call_site());
        quote! {
            const #verdict: #private::Checked =
                #private::Checked::new(#name, &__PARAMETERS, #private::Dialect::#dialect);
            #(#per_parameter)*
            #outside
        }
    });
    // schemars' order for a struct that denies unknown fields: `type`, `additionalProperties`,
    // `properties`, `required`.
    quote! {
        const _: () = {
            static __REQUIRED: #private::Required<#count> = #private::Required::new([#(#required),*]);
            static __PARAMETERS: #private::Shape = #private::Shape::Schema(&[
                (#private::Keyword::Type, #private::Shape::Str("object")),
                (#private::Keyword::AdditionalProperties, #private::Shape::Bool(false)),
                (#private::Keyword::Properties, #private::Shape::Names(&[#(#properties),*])),
                (#private::Keyword::Required, #private::Shape::List(__REQUIRED.names())),
            ]);
            #(#checks)*
        };
    }
}
