//! `#[tool]` on a free function: the function as written, a unit struct `<CamelName>Tool`, and
//! its `Tool` implementation.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::check;
use crate::ctxt::Ctxt;
use crate::expand::args::args_struct;
use crate::expand::doc::{tool_type_doc, tool_type_summary};
use crate::expand::fallback::stand_in_tool;
use crate::expand::tool::tool_impl;
use crate::parse::attr::parse_tool_attr;
use crate::parse::item::{camel_case, parse_tool_fn, Owner};
use crate::parse::shell::FnShell;
use crate::resolve::{private_module, version_check};
use crate::settings::{manifest_input, settings};

pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut cx = Ctxt::default();
    let attr = parse_tool_attr(&mut cx, args);
    let mut item = match syn::parse2::<FnShell>(input.clone()) {
        Ok(item) => item,
        Err(shell_error) => return not_a_function(input, shell_error),
    };
    let private = private_module(attr.options.crate_path.as_ref());
    let def = parse_tool_fn(
        &mut cx,
        attr,
        &item.attrs,
        &item.vis,
        &mut item.sig,
        Owner::Free,
    );
    check(&mut cx, &def);

    // A receiver means the fn is a method of an impl block without `#[tools]` (an error already
    // recorded): a struct and its impl cannot be declared there, so only the errors go out.
    if item.sig.receiver().is_some() {
        let errors = cx.check().err().map(|errors| errors.to_compile_error());
        return quote!(#item #errors);
    }

    let vis = &item.vis;
    let tool_ident = tool_struct_ident(&item.sig.ident);
    let tool_ty = quote!(#tool_ident);
    // One line in every build (what a crate that warns of the undocumented needs); the rest,
    // name, description and parameters, for rustdoc alone, as the arguments struct's.
    let summary = tool_type_summary(&item.sig.ident);
    let doc = tool_type_doc(&def);
    let tool_struct = quote! {
        #[doc = #summary]
        #[cfg_attr(doc, doc = #doc)]
        #[derive(::core::fmt::Debug, ::core::default::Default)]
        #vis struct #tool_ident;

        // Written out: the derives of `Clone` and `Copy` together add an impl of an unstable
        // marker trait, and the three cost rustc 8 million instructions more than these two,
        // about 2% of a crate of one tool.
        #[automatically_derived]
        impl ::core::clone::Clone for #tool_ident {
            #[inline]
            fn clone(&self) -> Self {
                #tool_ident
            }
        }

        #[automatically_derived]
        impl ::core::marker::Copy for #tool_ident {}
    };
    let implementation = match cx.check() {
        Ok(()) => {
            let args_struct = args_struct(&def, &private);
            let implementation = tool_impl(&def, &private, &tool_ty);
            quote!(#args_struct #implementation)
        }
        Err(errors) => {
            let errors = errors.to_compile_error();
            let stand_in = stand_in_tool(&private, &tool_ty);
            // The tool impl, which carries the version check, is not there.
            let version_check = version_check(&private);
            quote!(#errors #stand_in #version_check)
        }
    };
    let manifest_input = manifest_input(&settings());
    quote! {
        #item
        #tool_struct
        #implementation
        #manifest_input
    }
}

/// `get_weather` → `GetWeatherTool`.
pub(crate) fn tool_struct_ident(fn_ident: &syn::Ident) -> syn::Ident {
    format_ident!("{}Tool", camel_case(fn_ident), span = fn_ident.span())
}

/// The error for input that is not a function with a body: what it is instead, when it is an
/// item (only this path parses the whole input).
fn not_a_function(input: TokenStream, shell_error: syn::Error) -> TokenStream {
    let error = match syn::parse2::<syn::Item>(input.clone()) {
        Ok(syn::Item::Fn(_)) => shell_error,
        Ok(other) => syn::Error::new_spanned(
            item_error_span(&other),
            "`#[tool]` goes on a `fn` or `async fn`; for methods, put `#[tools]` on the impl block and `#[tool]` on each method",
        ),
        Err(error) => error,
    };
    with_errors(input, error)
}

fn with_errors(input: TokenStream, error: syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote!(#input #errors)
}

/// Where an error about an item that is not a function goes: its name when it has one (the
/// `GetWeather` of `pub struct GetWeather`), else the keyword that opens it (`impl`), else the
/// whole item. Read from the syntax tree, so a visibility or attribute before it is not taken
/// for it.
pub(crate) fn item_error_span(item: &syn::Item) -> TokenStream {
    use quote::ToTokens;
    use syn::Item;
    match item {
        Item::Const(item) => item.ident.to_token_stream(),
        Item::Enum(item) => item.ident.to_token_stream(),
        Item::ExternCrate(item) => item.ident.to_token_stream(),
        Item::Fn(item) => item.sig.ident.to_token_stream(),
        Item::Macro(item) => match &item.ident {
            Some(ident) => ident.to_token_stream(),
            None => item.mac.path.to_token_stream(),
        },
        Item::Mod(item) => item.ident.to_token_stream(),
        Item::Static(item) => item.ident.to_token_stream(),
        Item::Struct(item) => item.ident.to_token_stream(),
        Item::Trait(item) => item.ident.to_token_stream(),
        Item::TraitAlias(item) => item.ident.to_token_stream(),
        Item::Type(item) => item.ident.to_token_stream(),
        Item::Union(item) => item.ident.to_token_stream(),
        Item::Impl(item) => item.impl_token.to_token_stream(),
        Item::Use(item) => item.use_token.to_token_stream(),
        Item::ForeignMod(item) => item.abi.to_token_stream(),
        other => other.to_token_stream(),
    }
}
