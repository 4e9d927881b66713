//! `#[tools]` on an impl block: the impl as written (tool attributes removed), a tool type per
//! `#[tool]` method holding the shared instance, and the `ToolSet` that hands them out.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use crate::check::check_set;
use crate::ctxt::Ctxt;
use crate::expand::args::args_struct;
use crate::expand::doc::tool_set_doc;
use crate::expand::fallback::stand_in_tool_set;
use crate::expand::free::item_error_span;
use crate::expand::tool::tool_impl;
use crate::model::ToolDef;
use crate::parse::set::parse_tool_set;
use crate::resolve::{private_module, version_check, version_value};
use crate::settings::{manifest_input, settings};

pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item = match syn::parse2::<syn::Item>(input.clone()) {
        Ok(syn::Item::Impl(item)) => item,
        Ok(syn::Item::Fn(item)) => {
            let error = syn::Error::new_spanned(
                item_error_span(&syn::Item::Fn(item)),
                "`#[tools]` goes on an impl block whose methods carry `#[tool]`; on a free function, use `#[tool]`",
            );
            return with_errors(input, error);
        }
        Ok(other) => {
            let error = syn::Error::new_spanned(
                item_error_span(&other),
                "`#[tools]` goes on an impl block whose methods carry `#[tool]`",
            );
            return with_errors(input, error);
        }
        Err(error) => return with_errors(input, error),
    };
    let mut cx = Ctxt::default();
    let set = parse_tool_set(&mut cx, args, &mut item);
    check_set(&mut cx, &set);
    let private = private_module(set.crate_path.as_ref());
    let generated = match cx.check() {
        Ok(()) => tool_set(&set.tools, &set.self_ty, &private),
        Err(errors) => {
            let errors = errors.to_compile_error();
            // Where the impl is inherent and not generic, a stand-in `ToolSet` keeps code that
            // registers the set from adding errors of its own.
            let stand_in = (set.trait_path.is_none() && set.generics.is_none())
                .then(|| stand_in_tool_set(&private, &set.self_ty));
            let version_check = version_check(&private);
            quote!(#errors #stand_in #version_check)
        }
    };
    let manifest_input = manifest_input(&settings());
    quote! {
        #item
        #generated
        #manifest_input
    }
}

fn with_errors(input: TokenStream, error: syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote!(#input #errors)
}

fn tool_set(defs: &[ToolDef], self_ty: &syn::Type, private: &TokenStream) -> TokenStream {
    let mut args_structs = Vec::new();
    let mut structs = Vec::new();
    let mut constructors = Vec::new();
    for def in defs {
        let crate::model::Callee::Method { ident, .. } = &def.callee else {
            continue;
        };
        let tool_ident = format_ident!("__ToolOf_{}", ident.unraw());
        let tool_ty = quote!(#tool_ident);
        args_structs.push(args_struct(def, private));
        let implementation = tool_impl(def, private, &tool_ty);
        structs.push(quote! {
            #[allow(non_camel_case_types)]
            struct #tool_ident {
                __inner: #private::Arc<#self_ty>,
            }
            #implementation
        });
        constructors.push(quote! {
            #private::Arc::new(#tool_ident {
                __inner: #private::Arc::clone(&self),
            }) as #private::Arc<dyn #private::Tool>
        });
    }
    let doc = tool_set_doc(defs);
    let version = version_value(private);
    quote! {
        #(#args_structs)*

        const _: () = {
            #(#structs)*

            #[cfg_attr(doc, doc = #doc)]
            #[automatically_derived]
            impl #private::ToolSet for #self_ty {
                fn tools(self: #private::Arc<Self>) -> ::std::vec::Vec<#private::Arc<dyn #private::Tool>> {
                    ::std::vec![#(#constructors),*]
                }
            }

            #version
        };
    }
}
