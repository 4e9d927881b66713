//! The compile-time dialect check of a tool's parameters: statements, for the `const` block
//! that holds the tool's implementation, that check each argument's type (its `Described`
//! shape) against the dialects chosen, and fail, spanned at the parameter, where a dialect
//! refuses it.
//!
//! Nothing is generated when no dialect is chosen: neither `#[tool(dialects(...))]` nor the
//! package's manifest (`[package.metadata.tool-sdk]`, see [`settings`](crate::settings))
//! asks for one. When one is, the check adds one item, the
//! descriptions it judges, which the tool's definition is also held to at registration:
//! generated code is compiled again at every incremental build, and each item costs the
//! compiler more than its statements.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::expand::field::field_type;
use crate::model::ToolDef;
use crate::settings::settings;
use crate::symbol::DIALECT_NAMES;

/// The binding of the check's verdict in the generated statements.
const CHECKED: &str = "__tool_sdk_checked";
/// The item that holds the descriptions the check judges.
const DESCRIBED: &str = "__TOOL_SDK_DESCRIBED";

/// The dialects chosen for `def`, as the set of their places in `Dialect::ALL`, and where a
/// refusal outside every parameter is reported; `None` when none is chosen.
fn chosen(def: &ToolDef) -> Option<(u8, Span)> {
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
            // The package's choice, `[package.metadata.tool-sdk]` (a malformed one is
            // reported by the checks, and chooses nothing).
            let mask = settings().dialects.iter().fold(0u8, |mask, name| {
                let place = DIALECT_NAMES
                    .iter()
                    .find(|(known, ..)| known == name)
                    .map_or(0, |(.., place)| *place);
                mask | 1 << place
            });
            (mask, Some(def.name_span))
        }
    };
    outside_span.filter(|_| mask != 0).map(|span| (mask, span))
}

/// Each parameter's description as the check reads it: `(wire name, shape, noted)`.
fn parameters(def: &ToolDef, private: &TokenStream) -> Vec<TokenStream> {
    def.arguments()
        .map(|(param, argument)| {
            let wire = &argument.wire_name;
            let ty = field_type(param, argument);
            let shape = if argument.unchecked {
                quote!(#private::Shape::Unchecked)
            } else {
                // Spanned at the type: a type without a description is reported there.
                quote_spanned!(param.ty.span()=> <#ty as #private::Described>::SHAPE)
            };
            // A keyword of the parameter's own beside its type's schema: a description
            // (schemars writes none that is empty), or a default (schemars writes the default
            // value of a type it can serialize, as tool arguments' types most often are).
            let noted = argument
                .description
                .as_ref()
                .is_some_and(|description| !description.trim().is_empty())
                || argument.default.is_some();
            quote!((#wire, #shape, #noted))
        })
        .collect()
}

/// The item that holds the descriptions of `def`'s parameters the check judges, for
/// [`dialect_checks`] and [`held_to_descriptions`] to name, in a block around both; nothing
/// when no dialect is chosen. One item, so that a type without a description is reported
/// once.
pub(crate) fn descriptions(def: &ToolDef, private: &TokenStream) -> TokenStream {
    if chosen(def).is_none() {
        return TokenStream::new();
    }
    let parameters = parameters(def, private);
    let described = syn::Ident::new(DESCRIBED, Span::call_site());
    quote! {
        const #described: &[#private::Parameter] = &[#(#parameters),*];
    }
}

/// `definition` (an expression of the tool's definition) held to the descriptions its check
/// judged, when dialects are chosen for `def`: registration refuses a tool whose schema is
/// not what was checked (`Described` derived beside a hand-written `JsonSchema`). The
/// definition as it is otherwise.
pub(crate) fn held_to_descriptions(
    def: &ToolDef,
    private: &TokenStream,
    definition: TokenStream,
) -> TokenStream {
    if chosen(def).is_none() {
        return definition;
    }
    let described = syn::Ident::new(DESCRIBED, Span::call_site());
    let types = def
        .arguments()
        .map(|(param, _)| written(&param.ty.to_token_stream().to_string()));
    quote! {
        #private::held_to_descriptions(#definition, #described, &[#(#types),*])
    }
}

/// A type's tokens as a person writes them: a space only between two words, and after a comma
/// or a semicolon.
fn written(tokens: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    let chars: Vec<char> = tokens.chars().collect();
    let mut out = String::with_capacity(tokens.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let before = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
            let after = chars.get(i + 1).copied();
            let keep = matches!((before, after), (Some(b), Some(a)) if word(b) && word(a))
                || matches!(before, Some(',' | ';'));
            if !keep {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// The statements that check `def`'s parameters against the dialects chosen for it, to go in
/// a `const` block where `name` is the tool's name and [`descriptions`] is in scope; nothing
/// when none is chosen.
pub(crate) fn dialect_checks(
    def: &ToolDef,
    private: &TokenStream,
    name: &TokenStream,
) -> TokenStream {
    let Some((mask, outside_span)) = chosen(def) else {
        return TokenStream::new();
    };
    let mut fails = Vec::new();
    for (index, (param, _)) in def.arguments().enumerate() {
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
    let described = syn::Ident::new(DESCRIBED, Span::call_site());
    quote! {
        let #binding = #private::Checked::new(#name, #described, #mask);
        #(#fails)*
        #outside
    }
}

#[cfg(test)]
mod tests {
    use super::written;

    #[test]
    fn a_type_is_named_as_it_is_written() {
        for (tokens, type_name) in [
            ("Vec < String >", "Vec<String>"),
            ("HashMap < String , u8 >", "HashMap<String, u8>"),
            ("& 'a str", "&'a str"),
            ("Option < Box < my :: Folder > >", "Option<Box<my::Folder>>"),
            ("[u8 ; 4]", "[u8; 4]"),
        ] {
            assert_eq!(written(tokens), type_name);
        }
    }
}
