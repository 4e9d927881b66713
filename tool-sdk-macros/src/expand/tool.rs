//! The `Tool` implementation of one tool: its cached definition and its call adapter.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::expand::dialects::{descriptions, dialect_checks, held_to_descriptions};
use crate::expand::field::field_type;
use crate::expand::output::{output_schema, result_arguments};
use crate::model::{Callee as ModelCallee, DeferMode, Hook, ParamKind, ToolDef};
use crate::resolve::version_value;

/// `impl Tool for #tool_ty`, in a `const _` block of its own that ends with the version check;
/// the arguments struct it decodes ([`args_struct`](crate::expand::args::args_struct)) is
/// emitted beside it by the caller.
pub(crate) fn tool_impl(
    def: &ToolDef,
    private: &TokenStream,
    tool_ty: &TokenStream,
) -> TokenStream {
    let name = &def.name;
    let description = def.description.as_deref().unwrap_or_default();
    let args = &def.args_ident;
    let options = options(def, private);
    let call = call_body(def, private);
    let confirm = def.options.confirm.as_ref().and_then(|hook| {
        let value = hook_value(def, hook, HookRole::Confirm, HookUse::Once)?;
        let check = confirm_body(def, private, &hook_callee(hook, quote!(__confirm)));
        Some(quote! {
            fn needs_confirmation(&self, __arguments: &str) -> bool {
                let __confirm = #value;
                #check
            }
        })
    });
    let compensate = def.options.compensate.as_ref().and_then(|hook| {
        let value = hook_value(def, hook, HookRole::Compensate, HookUse::Once)?;
        let body = compensate_body(def, private, hook, quote!(__action));
        Some(quote! {
            fn compensate<'__a>(
                &'__a self,
                __arguments: &'__a str,
                __output: &'__a #private::ToolOutput,
                __context: #private::ToolContext<'__a>,
            ) -> ::core::option::Option<#private::ToolFuture<'__a>> {
                let __action = #value;
                // The body returns early on bad arguments; the closure gives it a place to.
                let __compensate = move || -> #private::ToolFuture<'__a> { #body };
                ::core::option::Option::Some(__compensate())
            }
        })
    });
    let version = version_value(private);
    let dialect_checks = dialect_checks(def, private, &quote!(__TOOL_NAME));
    let descriptions = descriptions(def, private);
    let output_schema = output_schema(def, private);
    let definition = held_to_descriptions(
        def,
        private,
        quote! {
            #private::definition::<#args>(__TOOL_NAME, #description, #options)
                #output_schema
        },
    );
    quote! {
        const _: () = {
            const __TOOL_NAME: &str = #name;
            #descriptions

            #[automatically_derived]
            impl #private::Tool for #tool_ty {
                fn definition(&self) -> &#private::ToolDefinition {
                    static __DEFINITION: #private::OnceLock<#private::ToolDefinition> =
                        #private::OnceLock::new();
                    fn __build() -> #private::ToolDefinition {
                        #definition
                    }
                    #private::cached_definition(&__DEFINITION, __build)
                }

                fn call<'__a>(
                    &'__a self,
                    __arguments: &'__a str,
                    __context: #private::ToolContext<'__a>,
                ) -> #private::ToolFuture<'__a> {
                    #call
                }

                // Decoded as the call decodes, so that no one is asked about a call that
                // cannot run.
                fn check_arguments(
                    &self,
                    __arguments: &str,
                ) -> ::core::result::Result<(), #private::ToolError> {
                    #private::decode::<#args>(__TOOL_NAME, __arguments).map(|_| ())
                }

                #confirm
                #compensate
            }

            #dialect_checks
            #version
        };
    }
}

/// The options expression of the tool's definition.
pub(crate) fn options(def: &ToolDef, private: &TokenStream) -> TokenStream {
    let o = &def.options;
    let mut calls = Vec::new();
    if let Some(millis) = o.timeout_millis {
        calls.push(quote!(.with_timeout(#private::Duration::from_millis(#millis))));
    }
    if o.return_direct {
        calls.push(quote!(.with_return_direct(true)));
    }
    if o.overrides_built_in {
        calls.push(quote!(.with_overrides_built_in(true)));
    }
    if o.skip_permission {
        calls.push(quote!(.with_skip_permission(true)));
    }
    if let Some(mode) = o.defer {
        let variant = match mode {
            DeferMode::Always => quote!(Always),
            DeferMode::Auto => quote!(Auto),
            DeferMode::Never => quote!(Never),
        };
        calls.push(quote!(.with_defer(#private::Defer::#variant)));
    }
    match &o.confirm {
        None => {}
        Some(Hook::Always) => calls.push(quote!(.with_confirm(#private::Confirm::Always))),
        Some(_) => calls.push(quote!(.with_confirm(#private::Confirm::WhenPredicate))),
    }
    if o.compensate.is_some() {
        calls.push(quote!(.with_compensable(true)));
    }
    if o.read_only {
        calls.push(quote!(.with_read_only(true)));
    }
    if let Some(bytes) = o.result_limit {
        // A literal of the bytes: `usize` on the runtime crate's side.
        let bytes = proc_macro2::Literal::u64_unsuffixed(bytes);
        calls.push(quote!(.with_result_limit(#bytes)));
    }
    if o.long_running {
        calls.push(quote!(.with_long_running(true)));
    }
    if let Some(destructive) = o.destructive {
        calls.push(quote!(.with_destructive(#destructive)));
    }
    quote!(#private::ToolOptions::new() #(#calls)*)
}

/// How generated code calls a function with a list of arguments.
pub(crate) type Callee<'a> = dyn Fn(Vec<TokenStream>) -> TokenStream + 'a;

/// What a hook is for, which decides the signature generated code calls it with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookRole {
    /// `confirm = predicate`: each schema argument by reference; returns `bool`.
    Confirm,
    /// `compensate = action`: the arguments struct, then the recorded output decoded into the
    /// action's second parameter type, then its context parameters; returns anything a tool may
    /// return, or a future of it.
    Compensate,
}

/// How generated code holds a hook, which decides the `Fn` trait it must implement.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookUse {
    /// Evaluated afresh for each use (`#[tool]`, `#[tools]`): called once, so any `FnOnce`
    /// fits, an `async` closure that borrows its captures included.
    Once,
    /// Evaluated once and kept in the tool (`define_tool!`): called many times, from any thread.
    Shared,
}

/// The hook as a value with exactly the signature generated code calls it with (after
/// `&Self` for a sibling method taking `&self`); `None` for a flag.
///
/// A local `fn` states that signature as a bound, spanned at the hook: a closure gets its
/// parameter types from it, and a function or closure that does not fit is reported once, at the
/// hook, with the expected signature (rustc's "expected closure signature `fn(String, u8, _) ->
/// _`"), rather than as argument errors on generated calls. The value comes back boxed as a
/// `dyn FnOnce` / `dyn Fn` of that signature: calls through it add no errors of their own and,
/// unlike an `impl Fn`, its type does not carry the bound, which rustc would check (and report)
/// again wherever generated code names the type.
///
/// One form cannot be boxed: an `async` closure kept by `define_tool!` borrows its captures in
/// each call's future, so it implements `AsyncFn` but not `Fn`, and its future's type cannot be
/// named. It comes back as it is, checked against `AsyncFn` (the bound also tells the closure it
/// is called by reference), and generated code calls it with call syntax at its concrete type;
/// a mismatch there is reported twice, by the bound and by the call.
pub(crate) fn hook_value(
    def: &ToolDef,
    hook: &Hook,
    role: HookRole,
    usage: HookUse,
) -> Option<TokenStream> {
    let span = hook_span(hook);
    if let (HookRole::Compensate, Hook::Call(expr)) = (role, hook) {
        // Its signature is not visible: checked by `__private::CompensatingAction` where it
        // is called (see `compensate_body`).
        return Some(expr.to_token_stream());
    }
    let (value, self_ty) = match hook {
        Hook::Always => return None,
        Hook::Call(expr) | Hook::Closure { expr, .. } => (expr.to_token_stream(), None),
        Hook::Method {
            ident, receiver, ..
        } => {
            let ModelCallee::Method { self_ty, .. } = &def.callee else {
                return None;
            };
            let value = quote_spanned!(ident.span()=> <#self_ty>::#ident);
            (value, receiver.then_some(self_ty))
        }
    };
    // A method's future may borrow the instance: the lifetime is named, so the output can
    // depend on it.
    let lifetime = self_ty.map(|_| quote_spanned!(span=> '__s));
    let lifetime_param = lifetime.as_ref().map(|l| quote_spanned!(span=> #l,));
    let receiver = self_ty.map(|ty| quote_spanned!(span=> &#lifetime #ty,));
    let (helper, parameter, generics, arguments) = match role {
        HookRole::Confirm => {
            let types = def.arguments().map(|(param, argument)| {
                let ty = field_type(param, argument);
                quote_spanned!(span=> &#ty)
            });
            (
                quote_spanned!(span=> __confirmation_predicate),
                quote_spanned!(span=> predicate),
                quote_spanned!(span=> #lifetime_param __F),
                quote_spanned!(span=> (#receiver #(#types),*) -> bool),
            )
        }
        HookRole::Compensate => {
            let args = respan(def.args_ident.to_token_stream(), span);
            let context = hook.extra().iter().filter_map(|extra| extra.ty.as_ref());
            (
                quote_spanned!(span=> __compensating_action),
                quote_spanned!(span=> action),
                quote_spanned!(span=> #lifetime_param __F, __O, __R),
                quote_spanned!(span=> (#receiver #args, __O #(, #context)*) -> __R),
            )
        }
    };
    let kept_async = usage == HookUse::Shared
        && role == HookRole::Compensate
        && matches!(hook, Hook::Closure { is_async: true, .. });
    let helper_fn = if kept_async {
        quote_spanned! {span=>
            fn #helper<#generics>(#parameter: __F) -> __F
            where
                __F: ::core::ops::AsyncFn #arguments,
            {
                #parameter
            }
        }
    } else {
        let (family, bounds) = match usage {
            HookUse::Once => (
                quote_spanned!(span=> ::core::ops::FnOnce),
                quote_spanned!(span=> ::core::marker::Send),
            ),
            HookUse::Shared => (
                quote_spanned!(span=> ::core::ops::Fn),
                quote_spanned!(span=> ::core::marker::Send + ::core::marker::Sync),
            ),
        };
        let outlives = match &lifetime {
            Some(lifetime) => lifetime.clone(),
            None => quote_spanned!(span=> 'static),
        };
        quote_spanned! {span=>
            #[allow(clippy::type_complexity)]
            fn #helper<#generics>(
                #parameter: __F,
            ) -> ::std::boxed::Box<dyn #family #arguments + #bounds + #outlives>
            where
                __F: #family #arguments + #bounds + #outlives,
            {
                ::std::boxed::Box::new(#parameter)
            }
        }
    };
    Some(quote_spanned! {span=> {
        #helper_fn
        #helper(#value)
    }})
}

/// How generated code calls a hook bound to `binding` by [`hook_value`].
pub(crate) fn hook_callee(
    hook: &Hook,
    binding: TokenStream,
) -> impl Fn(Vec<TokenStream>) -> TokenStream {
    let span = hook_span(hook);
    let binding = respan(binding, span);
    let receiver = matches!(hook, Hook::Method { receiver: true, .. })
        .then(|| quote_spanned!(span=> &*self.__inner,));
    move |args| quote_spanned!(span=> (#binding)(#receiver #(#args),*))
}

/// `tokens`, every one moved to `span` (groups flat: the bindings given here have none).
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            token.set_span(span);
            token
        })
        .collect()
}

/// Where errors about a hook's signature are reported.
pub(crate) fn hook_span(hook: &Hook) -> Span {
    match hook {
        Hook::Always => Span::call_site(),
        Hook::Call(expr) | Hook::Closure { expr, .. } => expr.span(),
        Hook::Method { ident, .. } => ident.span(),
    }
}

/// Decodes `__arguments` into `__args`, or returns `#on_error` wrapped as the caller needs.
fn decode_args(
    def: &ToolDef,
    private: &TokenStream,
    wrap_error: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let args = &def.args_ident;
    let error = wrap_error(quote!(#private::ToolFuture::ready(::core::result::Result::Err(error))));
    quote! {
        let __args: #args = match #private::decode(__TOOL_NAME, __arguments) {
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

/// The body of `Tool::call`: decode, take the context, run the function, convert its value.
/// Reads `__arguments` and `__context`; evaluates to a `ToolFuture`.
pub(crate) fn call_body(def: &ToolDef, private: &TokenStream) -> TokenStream {
    let mut extract = Vec::new();
    for (i, param) in def.params.iter().enumerate() {
        if let ParamKind::Context = param.kind {
            let binding = format_ident!("__context_{}", i);
            extract.push(context_value(&binding, &param.ty, private));
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
    let finish = finish(def, private);
    let run = if def.is_async {
        // An inline handler is shared with the future through its `Arc`.
        let share = matches!(def.callee, ModelCallee::Inline)
            .then(|| quote!(let __handler = #private::Arc::clone(&__handler);));
        quote! {
            #share
            #private::ToolFuture::boxed(async move {
                #[allow(clippy::let_unit_value)]
                let __value = #invoke.await;
                #finish
            })
        }
    } else {
        quote! {
            #[allow(clippy::let_unit_value)]
            let __value = #invoke;
            #private::ToolFuture::ready(#finish)
        }
    };
    let decode = decode_args(def, private, |error| error);
    quote! {
        #decode
        #(#extract)*
        #run
    }
}

/// The body of `Tool::needs_confirmation` for a predicate: reads `__arguments`, evaluates to
/// `bool`. The predicate gets each schema argument by reference.
pub(crate) fn confirm_body(
    def: &ToolDef,
    private: &TokenStream,
    callee: &Callee<'_>,
) -> TokenStream {
    let args = &def.args_ident;
    let predicate = callee(argument_list(def, true));
    quote! {
        #private::confirm_with::<#args>(__arguments, |__args: #args| #predicate)
    }
}

/// The body of `Tool::compensate`: decode the recorded arguments into the arguments struct and
/// the output into the action's output parameter type, take the action's context parameters,
/// run the action (awaited when it is `async`), convert its value. Reads `__arguments`,
/// `__output` and `__context`; evaluates to a `ToolFuture`.
pub(crate) fn compensate_body(
    def: &ToolDef,
    private: &TokenStream,
    hook: &Hook,
    action: TokenStream,
) -> TokenStream {
    let span = hook_span(hook);
    let finish = finish_at(span, span, span, private);
    let decode = decode_args(def, private, |error| error);
    let resolve = quote_spanned! {span=>
        let __value = {
            #[allow(unused_imports)]
            use #private::{FutureKind as _, ReadyKind as _};
            (&&#private::Wrap::of(&__value)).__tool_future_kind().resolve(__value)
        }
        .await;
    };
    if let Hook::Call(_) = hook {
        // A path: its parameters are not visible, so a trait decodes the output into its second
        // parameter's type and takes the rest from the context, whatever their number; a
        // function that does not fit is reported at the path, in the trait's words.
        let action = respan(action, span);
        let args = respan(def.args_ident.to_token_stream(), span);
        return quote_spanned! {span=>
            #decode
            #private::ToolFuture::boxed(async move {
                match #private::CompensatingAction::<#args, _>::run(
                    #action,
                    __args,
                    __output,
                    &__context,
                    __TOOL_NAME,
                ) {
                    ::core::result::Result::Ok(__value) => {
                        #resolve
                        #finish
                    }
                    ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
                }
            })
        };
    }
    let mut extract = Vec::new();
    let mut args = vec![
        quote_spanned!(span=> __args),
        quote_spanned!(span=> __recorded),
    ];
    for (i, ty) in hook
        .extra()
        .iter()
        .filter_map(|extra| extra.ty.as_ref())
        .enumerate()
    {
        let binding = format_ident!("__action_context_{}", i, span = span);
        extract.push(context_value(&binding, ty, private));
        args.push(quote_spanned!(span=> #binding));
    }
    let invoke = hook_callee(hook, action)(args);
    // No arm diverges (`return`), so when the action does not fit, the type of its output is
    // not left to never-type fallback, which would add an error of its own.
    quote_spanned! {span=>
        #decode
        #(#extract)*
        #private::ToolFuture::boxed(async move {
            match #private::decode_output(__TOOL_NAME, __output) {
                ::core::result::Result::Ok(__recorded) => {
                    #[allow(clippy::let_unit_value)]
                    let __value = #invoke;
                    #resolve
                    #finish
                }
                ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
            }
        })
    }
}

/// `let #binding = <#ty as FromToolContext>::from_tool_context(&__context)`, returning the
/// error as the call's result; spanned at the type, so a type that is not a context parameter
/// is reported there.
fn context_value(binding: &syn::Ident, ty: &syn::Type, private: &TokenStream) -> TokenStream {
    quote_spanned! {ty.span()=>
        let #binding = match <#ty as #private::FromToolContext>::from_tool_context(&__context) {
            ::core::result::Result::Ok(value) => value,
            ::core::result::Result::Err(error) => {
                return #private::ToolFuture::ready(::core::result::Result::Err(error));
            }
        };
    }
}

/// Turns `__value` into a `ToolResult` by its concrete type (see `__private`'s tags): a
/// `Result` is split first (a future, which was not awaited, is reported there), then the
/// success goes through `IntoToolOutput` or `Serialize`.
/// Spanned at the return type, so an unsupported one is reported there: for `Result<T, E>`, the
/// split at `E` and the conversion at `T`.
fn finish(def: &ToolDef, private: &TokenStream) -> TokenStream {
    let span = def.output.as_ref().map_or(def.value_span, Spanned::span);
    let (ok_span, err_span) = def
        .output
        .as_ref()
        .and_then(result_arguments)
        .and_then(|(ok, err)| Some((ok, err?)))
        .map_or((span, span), |(ok, err)| (ok.span(), err.span()));
    finish_at(span, ok_span, err_span, private)
}

/// [`finish`] with explicit spans: the whole, the success conversion, the error split.
fn finish_at(span: Span, ok_span: Span, err_span: Span, private: &TokenStream) -> TokenStream {
    let split = quote_spanned! {err_span=>
        (&&&#private::Wrap::of(&__value)).__tool_result_kind().split(__value, __TOOL_NAME)
    };
    let convert = quote_spanned! {ok_span=>
        (&&#private::Wrap::of(&__ok)).__tool_output_kind().convert(__ok, __TOOL_NAME)
    };
    quote_spanned! {span=>
        {
            #[allow(unused_imports)]
            use #private::{
                OutputKind as _, PlainKind as _, ResultKind as _, SerializeKind as _, UnawaitedKind as _,
            };
            match #split {
                ::core::result::Result::Ok(__ok) => #convert,
                ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
            }
        }
    }
}
