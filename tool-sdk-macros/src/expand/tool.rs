//! The `Tool` implementation of one tool: its cached definition and its call adapter.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::expand::args::{args_ident, args_struct};
use crate::model::{Callee as ModelCallee, DeferMode, Hook, ParamKind, ToolDef};

/// `impl Tool for #tool_ty`, with the arguments struct it decodes, in a `const _` block of its own.
pub(crate) fn tool_impl(def: &ToolDef, root: &TokenStream, tool_ty: &TokenStream) -> TokenStream {
    let name = &def.name;
    let description = def.description.as_deref().unwrap_or_default();
    let args = args_ident();
    let args_struct = args_struct(def, root);
    let options = options(def, root);
    let call = call_body(def, root);
    let confirm = def.options.confirm.as_ref().and_then(|hook| {
        let check = confirm_body(def, root, &hook_callee(hook, def)?);
        Some(quote! {
            fn needs_confirmation(&self, __arguments: &str) -> bool {
                #check
            }
        })
    });
    let compensate = def.options.compensate.as_ref().and_then(|hook| {
        let body = compensate_body(def, root, &hook_callee(hook, def)?, hook_span(hook));
        Some(quote! {
            fn compensate<'__a>(
                &'__a self,
                __arguments: &'__a str,
                __output: &'__a #root::ToolOutput,
                __context: #root::ToolContext<'__a>,
            ) -> ::core::option::Option<#root::ToolFuture<'__a>> {
                // The body returns early on bad arguments; the closure gives it a place to.
                let __compensate = move || -> #root::ToolFuture<'__a> { #body };
                ::core::option::Option::Some(__compensate())
            }
        })
    });
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

                #confirm
                #compensate
            }
        };
    }
}

/// The options expression of the tool's definition.
pub(crate) fn options(def: &ToolDef, root: &TokenStream) -> TokenStream {
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
    match &o.confirm {
        None => {}
        Some(Hook::Always) => calls.push(quote!(.confirm(#root::Confirm::Always))),
        Some(_) => calls.push(quote!(.confirm(#root::Confirm::WhenPredicate))),
    }
    if o.compensate.is_some() {
        calls.push(quote!(.compensable(true)));
    }
    quote!(#root::ToolOptions::new() #(#calls)*)
}

/// How generated code calls a function with a list of arguments.
pub(crate) type Callee<'a> = dyn Fn(Vec<TokenStream>) -> TokenStream + 'a;

/// The callee of a hook declared on a `#[tool]` or `#[tools]` tool; `None` for a flag.
fn hook_callee<'a>(hook: &'a Hook, def: &'a ToolDef) -> Option<Box<Callee<'a>>> {
    match hook {
        Hook::Always => None,
        Hook::Call(expr) => Some(Box::new(
            move |args| quote_spanned!(expr.span()=> (#expr)(#(#args),*)),
        )),
        Hook::Method { ident, receiver } => {
            let ModelCallee::Method { self_ty, .. } = &def.callee else {
                return None;
            };
            let receiver = *receiver;
            Some(Box::new(move |args| {
                if receiver {
                    quote_spanned!(ident.span()=> <#self_ty>::#ident(&*self.__inner, #(#args),*))
                } else {
                    quote_spanned!(ident.span()=> <#self_ty>::#ident(#(#args),*))
                }
            }))
        }
    }
}

/// Where errors about a hook's signature are reported.
pub(crate) fn hook_span(hook: &Hook) -> Span {
    match hook {
        Hook::Always => Span::call_site(),
        Hook::Call(expr) => expr.span(),
        Hook::Method { ident, .. } => ident.span(),
    }
}

/// Decodes `__arguments` into `__args`, or returns `#on_error` wrapped as the caller needs.
fn decode_args(root: &TokenStream, wrap_error: impl Fn(TokenStream) -> TokenStream) -> TokenStream {
    let args = args_ident();
    let error = wrap_error(quote!(#root::ToolFuture::ready(::core::result::Result::Err(error))));
    quote! {
        let __args: #args = match #root::__private::decode(__TOOL_NAME, __arguments) {
            ::core::result::Result::Ok(args) => args,
            ::core::result::Result::Err(error) => return #error,
        };
    }
}

/// The arguments of the tool's own function, in parameter order, taken from `__args` and the
/// context bindings.
fn argument_list(def: &ToolDef, by_ref: bool) -> Vec<TokenStream> {
    def.params
        .iter()
        .enumerate()
        .filter_map(|(i, param)| {
            let ident = &param.ident;
            match &param.kind {
                ParamKind::Argument(_) if by_ref => Some(quote!(&__args.#ident)),
                ParamKind::Argument(argument) => Some(match &argument.borrowed {
                    Some(inner) => quote! {
                        <<#inner as ::std::borrow::ToOwned>::Owned as ::core::borrow::Borrow<#inner>>::borrow(&__args.#ident)
                    },
                    None => quote!(__args.#ident),
                }),
                ParamKind::Context if by_ref => None,
                ParamKind::Context => {
                    let binding = format_ident!("__context_{}", i);
                    Some(quote!(#binding))
                }
            }
        })
        .collect()
}

/// The schema arguments alone (no context), by value.
fn schema_arguments(def: &ToolDef) -> Vec<TokenStream> {
    def.arguments()
        .map(|(param, argument)| {
            let ident = &param.ident;
            match &argument.borrowed {
                Some(inner) => quote! {
                    <<#inner as ::std::borrow::ToOwned>::Owned as ::core::borrow::Borrow<#inner>>::borrow(&__args.#ident)
                },
                None => quote!(__args.#ident),
            }
        })
        .collect()
}

/// The body of `Tool::call`: decode, take the context, run the function, convert its value.
/// Reads `__arguments` and `__context`; evaluates to a `ToolFuture`.
pub(crate) fn call_body(def: &ToolDef, root: &TokenStream) -> TokenStream {
    let mut extract = Vec::new();
    for (i, param) in def.params.iter().enumerate() {
        if let ParamKind::Context = param.kind {
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
        }
    }
    let call_args = argument_list(def, false);
    let invoke = match &def.callee {
        ModelCallee::Free(ident) => quote!(#ident(#(#call_args),*)),
        ModelCallee::Method {
            ident,
            self_ty,
            receiver: true,
        } => quote!(<#self_ty>::#ident(&*self.__inner, #(#call_args),*)),
        ModelCallee::Method {
            ident,
            self_ty,
            receiver: false,
        } => quote!(<#self_ty>::#ident(#(#call_args),*)),
        ModelCallee::Inline => quote!((*__handler)(#(#call_args),*)),
    };
    let finish = finish(def, root);
    let run = if def.is_async {
        // An inline handler is shared with the future through its `Arc`.
        let share = matches!(def.callee, ModelCallee::Inline)
            .then(|| quote!(let __handler = #root::__private::Arc::clone(&__handler);));
        quote! {
            #share
            #root::ToolFuture::boxed(async move {
                #[allow(clippy::let_unit_value)]
                let __value = #invoke.await;
                #finish
            })
        }
    } else {
        quote! {
            #[allow(clippy::let_unit_value)]
            let __value = #invoke;
            #root::ToolFuture::ready(#finish)
        }
    };
    let decode = decode_args(root, |error| error);
    quote! {
        #decode
        #(#extract)*
        #run
    }
}

/// The body of `Tool::needs_confirmation` for a predicate: reads `__arguments`, evaluates to
/// `bool`. The predicate gets each schema argument by reference.
pub(crate) fn confirm_body(def: &ToolDef, root: &TokenStream, callee: &Callee<'_>) -> TokenStream {
    let args = args_ident();
    let predicate = callee(argument_list(def, true));
    quote! {
        #root::__private::confirm_with::<#args>(__arguments, |__args: #args| #predicate)
    }
}

/// The body of `Tool::compensate`: decode the recorded arguments and output, run the
/// compensating action (awaited when it is `async`), convert its value. Reads `__arguments`,
/// `__output`; evaluates to a `ToolFuture`.
pub(crate) fn compensate_body(
    def: &ToolDef,
    root: &TokenStream,
    callee: &Callee<'_>,
    span: Span,
) -> TokenStream {
    let mut args = schema_arguments(def);
    args.push(quote!(__recorded));
    let invoke = callee(args);
    let finish = finish_at(span, span, span, root);
    let decode = decode_args(root, |error| error);
    quote_spanned! {span=>
        #decode
        #root::ToolFuture::boxed(async move {
            let __recorded = match #root::__private::decode_output(__TOOL_NAME, __output) {
                ::core::result::Result::Ok(output) => output,
                ::core::result::Result::Err(error) => return ::core::result::Result::Err(error),
            };
            #[allow(clippy::let_unit_value)]
            let __value = #invoke;
            let __value = {
                #[allow(unused_imports)]
                use #root::__private::{FutureKind as _, ReadyKind as _};
                (&&#root::__private::Wrap::of(&__value)).__tool_future_kind().resolve(__value)
            }
            .await;
            #finish
        })
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
    finish_at(span, ok_span, err_span, root)
}

/// [`finish`] with explicit spans: the whole, the success conversion, the error split.
fn finish_at(span: Span, ok_span: Span, err_span: Span, root: &TokenStream) -> TokenStream {
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
