//! `define_tool!`: a block that defines the arguments struct, keeps the user's closure, and
//! evaluates to an `InlineTool` holding the adapters around it.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::check::check;
use crate::ctxt::Ctxt;
use crate::expand::args::args_struct;
use crate::expand::dialects::{descriptions, dialect_checks, held_to_descriptions};
use crate::expand::output::output_schema;
use crate::expand::tool::{
    call_body, compensate_body, confirm_body, hook_callee, hook_span, hook_value, options,
    HookRole, HookUse,
};
use crate::model::{Hook, ToolDef};
use crate::parse::inline::{parse_inline, InlineInput};
use crate::resolve::{private_module, version_check, version_value};
use crate::settings::{manifest_input, settings};

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let mut input: InlineInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut cx = Ctxt::default();
    let def = parse_inline(&mut cx, &mut input);
    check(&mut cx, &def);
    let private = private_module(def.options.crate_path.as_ref());
    let version_check = version_check(&private);
    let manifest_input = manifest_input(&settings());
    match cx.check() {
        Ok(()) => {
            let tool = inline_tool(&def, &private, &input.closure);
            // The dialect checks join the version check's `const` block; the descriptions they
            // judge are an item beside it, which the tool's definition names too.
            let name = &def.name;
            let dialect_checks = dialect_checks(&def, &private, &quote!(#name));
            let descriptions = descriptions(&def, &private);
            let version = version_value(&private);
            quote! {{
                #manifest_input
                #descriptions
                const _: () = {
                    #dialect_checks
                    #version
                };
                #tool
            }}
        }
        Err(errors) => {
            // The errors, and a value of the right type, so code using it adds none of its own.
            let errors = errors.to_compile_error();
            let closure = &input.closure;
            quote! {{
                #errors
                #manifest_input
                #version_check
                let _ = #closure;
                #private::inline_stand_in()
            }}
        }
    }
}

fn inline_tool(def: &ToolDef, private: &TokenStream, closure: &syn::ExprClosure) -> TokenStream {
    let name = &def.name;
    let description = def.description.as_deref().unwrap_or_default();
    let args = &def.args_ident;
    let args_struct = args_struct(def, private);
    let options = options(def, private);
    let output_schema = output_schema(def, private);
    let definition = held_to_descriptions(
        def,
        private,
        quote! {
            #private::definition::<#args>(__TOOL_NAME, #description, #options)
                #output_schema
        },
    );
    let call = call_body(def, private);
    // The hooks' expressions are evaluated before the handler's closure, in the order they are
    // written, so a hook can clone what the closure then moves.
    let (confirm_value, confirm) = match &def.options.confirm {
        Some(hook) => match hook_value(def, hook, HookRole::Confirm, HookUse::Shared) {
            Some(value) => {
                let check = confirm_body(def, private, &hook_callee(hook, quote!(__confirm)));
                let span = hook_span(hook);
                (
                    quote_spanned!(span=> let __confirm = #value;),
                    quote_spanned! {span=>
                        let __tool = #private::inline_with_confirm(__tool, move |__arguments: &str| #check);
                    },
                )
            }
            None => (TokenStream::new(), TokenStream::new()),
        },
        None => (TokenStream::new(), TokenStream::new()),
    };
    let (compensate_value, compensate) = match &def.options.compensate {
        Some(hook) => match hook_value(def, hook, HookRole::Compensate, HookUse::Shared) {
            Some(value) => {
                let span = hook_span(hook);
                // A path is called through a trait, by reference (it is kept and called for
                // each compensation); a closure or method by call syntax.
                let action = match hook {
                    Hook::Call(_) => quote!(&*__compensate),
                    _ => quote!(*__compensate),
                };
                let body = compensate_body(def, private, hook, action);
                (
                    quote_spanned!(span=> let __compensate = #private::Arc::new(#value);),
                    quote! {
                        let __tool = #private::inline_with_compensate(__tool, move |__arguments, __output, __context| {
                            let _ = &__context;
                            let __compensate = #private::Arc::clone(&__compensate);
                            #body
                        });
                    },
                )
            }
            None => (TokenStream::new(), TokenStream::new()),
        },
        None => (TokenStream::new(), TokenStream::new()),
    };
    quote! {{
        const __TOOL_NAME: &str = #name;
        #args_struct
        #confirm_value
        #compensate_value
        let __handler = #private::Arc::new(#closure);
        static __DEFINITION: #private::OnceLock<#private::ToolDefinition> =
            #private::OnceLock::new();
        fn __build() -> #private::ToolDefinition {
            #definition
        }
        let __definition = #private::cached_definition(&__DEFINITION, __build);
        let __tool = #private::inline_tool(__definition, move |__arguments, __context| {
            let _ = &__context;
            #call
        });
        // Decoded as the call decodes, so that no one is asked about a call that cannot run.
        let __tool = #private::inline_with_check(__tool, |__arguments: &str| {
            #private::decode::<#args>(__TOOL_NAME, __arguments).map(|_| ())
        });
        #confirm
        #compensate
        __tool
    }}
}
