//! The compile-time dialect check of a tool's parameters: statements, for the `const` block
//! that holds the tool's implementation, that check each argument's type (its `Described`
//! shape) against the dialects chosen, and fail, spanned at the parameter, where a dialect
//! refuses it.
//!
//! Nothing is generated when no dialect is chosen: neither `#[tool(dialects(...))]` nor a
//! feature of the runtime crate asks for one. When one is, the check adds no item: generated
//! code is compiled again at every incremental build, and each item costs the compiler more
//! than its statements.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::expand::field::field_type;
use crate::model::ToolDef;
use crate::symbol::DIALECT_NAMES;

/// The binding of the check's verdict in the generated statements.
const CHECKED: &str = "__tool_sdk_checked";

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
        .map(|(_, name)| name)
        .collect()
}

/// The statements that check `def`'s parameters against the dialects chosen for it, to go in
/// a `const` block where `name` is the tool's name; nothing when none is chosen.
pub(crate) fn dialect_checks(
    def: &ToolDef,
    private: &TokenStream,
    name: &TokenStream,
) -> TokenStream {
    // The dialects, as the set of their places in `Dialect::ALL`, and where a refusal outside
    // every parameter is reported.
    let (mask, outside_span) = match &def.options.dialects {
        Some(dialects) => {
            let mask = dialects.iter().fold(0u8, |mask, variant| {
                let place = DIALECT_NAMES
                    .iter()
                    .find(|(_, known, _)| variant == known)
                    .map_or(0, |(.., place)| *place);
                mask | 1 << place
            });
            (mask, dialects.first().map(|first| first.span()))
        }
        None => {
            let mask = chosen_for_every_tool().into_iter().fold(0u8, |mask, name| {
                let place = DIALECT_NAMES
                    .iter()
                    .find(|(known, ..)| *known == name)
                    .map_or(0, |(.., place)| *place);
                mask | 1 << place
            });
            (mask, Some(def.name_span))
        }
    };
    let Some(outside_span) = outside_span.filter(|_| mask != 0) else {
        return TokenStream::new();
    };
    let mut parameters = Vec::new();
    let mut fails = Vec::new();
    for (index, (param, argument)) in def.arguments().enumerate() {
        let wire = &argument.wire_name;
        let ty = field_type(param, argument);
        let shape = if argument.unchecked {
            quote!(#private::Shape::Unchecked)
        } else {
            // Spanned at the type: a type without a description is reported there.
            quote_spanned!(param.ty.span()=> <#ty as #private::Described>::SHAPE)
        };
        // A keyword of the parameter's own beside its type's schema: a description (schemars
        // writes none that is empty), or a default (schemars writes the default value of a
        // type it can serialize, as tool arguments' types most often are).
        let noted = argument
            .description
            .as_ref()
            .is_some_and(|description| !description.trim().is_empty())
            || argument.default.is_some();
        parameters.push(quote!((#wire, #shape, #noted)));
        // Located at the parameter, resolved where the macro is called: a failure is reported
        // where its call is (the call is `#[track_caller]`).
        let span = Span::call_site().located_at(param.ident.span());
        let checked = syn::Ident::new(CHECKED, span);
        fails.push(quote_spanned!(span=> #checked.fail_in(#index);));
    }
    let span = Span::call_site().located_at(outside_span);
    let checked = syn::Ident::new(CHECKED, span);
    let outside = quote_spanned!(span=> #checked.fail_outside(););
    let binding = syn::Ident::new(CHECKED, Span::call_site());
    quote! {
        let #binding = #private::Checked::new(#name, &[#(#parameters),*], #mask);
        #(#fails)*
        #outside
    }
}
