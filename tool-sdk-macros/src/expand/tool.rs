//! The `Tool` implementation of one tool: its cached definition and its call adapter.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::expand::args::{args_ident, args_struct};
use crate::model::{Callee, DeferMode, ParamKind, ToolDef};

/// `impl Tool for #tool_ty`, with the arguments struct it decodes, in a `const _` block of its own.
pub(crate) fn tool_impl(def: &ToolDef, root: &TokenStream, tool_ty: &TokenStream) -> TokenStream {
    let name = &def.name;
    let description = def.description.as_deref().unwrap_or_default();
    let args = args_ident();
    let args_struct = args_struct(def, root);
    let options = options(def, root);
    let call = call_body(def, root);
    quote! {
        const _: () = {
            #args_struct

            const __TOOL_NAME: &str = #name;

            #[automatically_derived]
            impl #root::Tool for #tool_ty {
                fn definition(&self) -> &#root::ToolDefinition {
                    static __DEFINITION: #root::__private::OnceLock<#root::ToolDefinition> =
                        #root::__private::OnceLock::new();
                    __DEFINITION.get_or_init(|| {
                        #root::__private::definition::<#args>(__TOOL_NAME, #description, #options)
                    })
                }

                fn call<'__a>(
                    &'__a self,
                    __arguments: &'__a str,
                    __context: #root::ToolContext<'__a>,
                ) -> #root::ToolFuture<'__a> {
                    #call
                }
            }
        };
    }
}

fn options(def: &ToolDef, root: &TokenStream) -> TokenStream {
    let o = &def.options;
    let mut calls = Vec::new();
    if let Some(millis) = o.timeout_millis {
        calls.push(quote!(.timeout(#root::__private::Duration::from_millis(#millis))));
    }
    if o.return_direct {
        calls.push(quote!(.return_direct(true)));
    }
    if o.overrides_built_in {
        calls.push(quote!(.overrides_built_in(true)));
    }
    if o.skip_permission {
        calls.push(quote!(.skip_permission(true)));
    }
    if let Some(mode) = o.defer {
        let variant = match mode {
            DeferMode::Always => quote!(Always),
            DeferMode::Auto => quote!(Auto),
            DeferMode::Never => quote!(Never),
        };
        calls.push(quote!(.defer(#root::Defer::#variant)));
    }
    quote!(#root::ToolOptions::new() #(#calls)*)
}

fn call_body(def: &ToolDef, root: &TokenStream) -> TokenStream {
    let args = args_ident();
    let mut extract = Vec::new();
    let mut call_args = Vec::new();
    for (i, param) in def.params.iter().enumerate() {
        let ident = &param.ident;
        match &param.kind {
            ParamKind::Argument(argument) => match &argument.borrowed {
                Some(inner) => call_args.push(quote! {
                    <<#inner as ::std::borrow::ToOwned>::Owned as ::core::borrow::Borrow<#inner>>::borrow(&__args.#ident)
                }),
                None => call_args.push(quote!(__args.#ident)),
            },
            ParamKind::Context => {
                let binding = format_ident!("__context_{}", i);
                let ty = &param.ty;
                extract.push(quote_spanned! {ty.span()=>
                    let #binding = match <#ty as #root::FromToolContext>::from_tool_context(&__context) {
                        ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(error) => {
                            return #root::ToolFuture::ready(::core::result::Result::Err(error));
                        }
                    };
                });
                call_args.push(quote!(#binding));
            }
        }
    }
    let invoke = match &def.callee {
        Callee::Free(ident) => quote!(#ident(#(#call_args),*)),
        Callee::Method {
            ident,
            self_ty,
            receiver: true,
        } => {
            quote!(<#self_ty>::#ident(&*self.__inner, #(#call_args),*))
        }
        Callee::Method {
            ident,
            self_ty,
            receiver: false,
        } => {
            quote!(<#self_ty>::#ident(#(#call_args),*))
        }
    };
    let finish = finish(def, root);
    let run = if def.is_async {
        quote! {
            #root::ToolFuture::boxed(async move {
                let __value = #invoke.await;
                #finish
            })
        }
    } else {
        quote! {
            let __value = #invoke;
            #root::ToolFuture::ready(#finish)
        }
    };
    quote! {
        let __args: #args = match #root::__private::decode(__TOOL_NAME, __arguments) {
            ::core::result::Result::Ok(args) => args,
            ::core::result::Result::Err(error) => {
                return #root::ToolFuture::ready(::core::result::Result::Err(error));
            }
        };
        #(#extract)*
        #run
    }
}

/// Turns `__value` into a `ToolResult` by its concrete type (see `__private`'s tags): a
/// `Result` is split first, then the success goes through `IntoToolOutput` or `Serialize`.
/// Spanned at the return type, so an unsupported one is reported there: for `Result<T, E>`, the
/// split at `E` and the conversion at `T`.
fn finish(def: &ToolDef, root: &TokenStream) -> TokenStream {
    let span = def.output.as_ref().map_or(def.span, Spanned::span);
    let (ok_span, err_span) = def
        .output
        .as_ref()
        .and_then(result_arguments)
        .map_or((span, span), |(ok, err)| (ok.span(), err.span()));
    let split = quote_spanned! {err_span=>
        (&&#root::__private::Wrap::of(&__value)).__tool_result_kind().split(__value, __TOOL_NAME)
    };
    let convert = quote_spanned! {ok_span=>
        (&&#root::__private::Wrap::of(&__ok)).__tool_output_kind().convert(__ok, __TOOL_NAME)
    };
    quote_spanned! {span=>
        {
            #[allow(unused_imports)]
            use #root::__private::{OutputKind as _, PlainKind as _, ResultKind as _, SerializeKind as _};
            match #split {
                ::core::result::Result::Ok(__ok) => #convert,
                ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
            }
        }
    }
}

/// `T` and `E` of a return type written `Result<T, E>` (any path ending in `Result`).
fn result_arguments(ty: &syn::Type) -> Option<(&syn::Type, &syn::Type)> {
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
        (Some(ok), Some(err), None) => Some((ok, err)),
        _ => None,
    }
}
