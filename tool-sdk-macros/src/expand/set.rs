//! `#[tools]` on an impl block: the impl as written (tool attributes removed), a tool type per
//! `#[tool]` method holding the shared instance, and the `ToolSet` that hands them out.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::ext::IdentExt;

use crate::check::check;
use crate::ctxt::Ctxt;
use crate::expand::args::args_struct;
use crate::expand::doc::tool_set_doc;
use crate::expand::fallback::stand_in_tool_set;
use crate::expand::free::item_keyword;
use crate::expand::tool::tool_impl;
use crate::model::{ExtraParam, Hook, ToolDef};
use crate::parse::attr::{parse_tool_attr, skip_value};
use crate::parse::hook::method_extra;
use crate::parse::item::{parse_tool_fn, replace_self, Owner};
use crate::resolve::{private_module, version_check};
use crate::symbol::{COMPENSATE_FIXED, CRATE, TOOL, TOOLS_KEYS};

pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut cx = Ctxt::default();
    let mut item = match syn::parse2::<syn::Item>(input.clone()) {
        Ok(syn::Item::Impl(item)) => item,
        Ok(syn::Item::Fn(item)) => {
            let error = syn::Error::new_spanned(
                item_keyword(&syn::Item::Fn(item)),
                "`#[tools]` goes on an impl block whose methods carry `#[tool]`; on a free function, use `#[tool]`",
            );
            return with_errors(input, error);
        }
        Ok(other) => {
            let error = syn::Error::new_spanned(
                item_keyword(&other),
                "`#[tools]` goes on an impl block whose methods carry `#[tool]`",
            );
            return with_errors(input, error);
        }
        Err(error) => return with_errors(input, error),
    };
    let crate_path = parse_set_args(&mut cx, args);
    if let Some((_, path, _)) = &item.trait_ {
        cx.error_spanned_by(
            path,
            "`#[tools]` goes on an inherent impl block, not on a trait impl",
        );
    }
    if !item.generics.params.is_empty() {
        cx.error_spanned_by(
            &item.generics,
            "`#[tools]` cannot be used on a generic impl block: each tool's schema is fixed at compile time",
        );
    }

    let self_ty = (*item.self_ty).clone();
    // Every method by name, with whether it takes `self` and its parameters after the first
    // two: a hook may name a sibling method.
    let methods: Vec<Sibling> = item
        .items
        .iter()
        .filter_map(|impl_item| match impl_item {
            syn::ImplItem::Fn(method) => Some(Sibling {
                ident: method.sig.ident.clone(),
                receiver: method.sig.receiver().is_some(),
                extra: method_extra(&method.sig, COMPENSATE_FIXED)
                    .into_iter()
                    .map(|mut extra| {
                        if let Some(ty) = &mut extra.ty {
                            replace_self(ty, &self_ty);
                        }
                        extra
                    })
                    .collect(),
            }),
            _ => None,
        })
        .collect();
    let mut defs: Vec<ToolDef> = Vec::new();
    for impl_item in &mut item.items {
        let syn::ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let Some(position) = method.attrs.iter().position(|a| a.path().is_ident(TOOL)) else {
            continue;
        };
        let tool_attr = method.attrs.remove(position);
        let tokens = match &tool_attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(list) => list.tokens.clone(),
            syn::Meta::NameValue(nv) => {
                cx.error_spanned_by(nv, "write `#[tool]` or `#[tool(key = value, ...)]`");
                TokenStream::new()
            }
        };
        let mut attr = parse_tool_attr(&mut cx, tokens);
        if let Some(hook) = &mut attr.options.confirm {
            sibling_method(hook, &methods, false);
        }
        if let Some(hook) = &mut attr.options.compensate {
            sibling_method(hook, &methods, true);
        }
        if let Some(path) = attr.options.crate_path.take() {
            cx.error_spanned_by(
                path,
                "inside `#[tools]`, give `crate = path` on `#[tools(...)]` itself",
            );
        }
        let def = parse_tool_fn(
            &mut cx,
            attr,
            &method.attrs,
            &method.vis,
            &mut method.sig,
            Owner::Impl { self_ty: &self_ty },
        );
        check(&mut cx, &def);
        if defs.iter().any(|d| d.name == def.name) {
            cx.error_at(
                def.name_span,
                format!("two tools of this impl block are named `{}`", def.name),
            );
        }
        defs.push(def);
    }
    if defs.is_empty() {
        cx.error_spanned_by(
            &item.self_ty,
            "no method of this impl block carries `#[tool]`",
        );
    }
    let private = private_module(crate_path.as_ref());
    let generated = match cx.check() {
        Ok(()) => tool_set(&defs, &self_ty, &private),
        Err(errors) => {
            let errors = errors.to_compile_error();
            // Where the impl is inherent and not generic, a stand-in `ToolSet` keeps code that
            // registers the set from adding errors of its own.
            let stand_in = (item.trait_.is_none() && item.generics.params.is_empty())
                .then(|| stand_in_tool_set(&private, &self_ty));
            quote!(#errors #stand_in)
        }
    };
    let version_check = version_check(&private);
    quote! {
        #item
        #generated
        #version_check
    }
}

fn with_errors(input: TokenStream, error: syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote!(#input #errors)
}

fn parse_set_args(cx: &mut Ctxt, args: TokenStream) -> Option<syn::Path> {
    let mut crate_path = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident(CRATE) {
            if crate_path.is_some() {
                cx.error_spanned_by(&meta.path, "duplicate `crate` in `#[tools]`");
            }
            crate_path = Some(meta.value()?.parse::<syn::Path>()?);
        } else {
            let shown = meta.path.to_token_stream().to_string().replace(' ', "");
            cx.error_spanned_by(
                &meta.path,
                format!(
                    "unknown key `{shown}` in `#[tools]`; expected one of: {}",
                    TOOLS_KEYS.join(", ")
                ),
            );
            skip_value(&meta)?;
        }
        Ok(())
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(error);
    }
    crate_path
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
    quote! {
        #(#args_structs)*

        const _: () = {
            #(#structs)*

            #[doc = #doc]
            #[automatically_derived]
            impl #private::ToolSet for #self_ty {
                fn tools(self: #private::Arc<Self>) -> ::std::vec::Vec<#private::Arc<dyn #private::Tool>> {
                    ::std::vec![#(#constructors),*]
                }
            }
        };
    }
}

/// A method of the impl block, as a hook may name it.
struct Sibling {
    ident: syn::Ident,
    receiver: bool,
    extra: Vec<ExtraParam>,
}

/// A hook written as the bare name of a method of the same impl block calls that method (with
/// the shared instance when it takes `&self`); `with_extra` when the hook's kind takes extra
/// parameters after its fixed ones (a compensating action's context parameters).
fn sibling_method(hook: &mut Hook, methods: &[Sibling], with_extra: bool) {
    let Hook::Call(syn::Expr::Path(path)) = hook else {
        return;
    };
    let Some(ident) = path.path.get_ident() else {
        return;
    };
    // The ident is the hook's own token, so errors about the method's signature point at the
    // hook that names it.
    if let Some(sibling) = methods.iter().find(|sibling| sibling.ident == *ident) {
        let extra = if with_extra {
            sibling.extra.clone()
        } else {
            Vec::new()
        };
        *hook = Hook::Method {
            ident: ident.clone(),
            receiver: sibling.receiver,
            extra,
        };
    }
}
