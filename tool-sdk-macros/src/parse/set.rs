//! `#[tools]`'s input: the impl block read into a [`ToolSetDef`], each `#[tool]` method into a
//! [`ToolDef`] (its tool attributes taken off, so the impl can be emitted as written).

use proc_macro2::TokenStream;

use crate::ctxt::Ctxt;
use crate::model::{ExtraParam, Hook, ToolDef, ToolSetDef};
use crate::parse::attr::{parse_dialects, parse_tool_attr, skip_value};
use crate::parse::hook::method_extra;
use crate::parse::item::{parse_tool_fn, replace_self, Owner};
use crate::resolve::display_path;
use crate::symbol::{COMPENSATE_FIXED, CRATE, DIALECTS, TOOL, TOOLS_KEYS};

/// Builds the model of an impl block under `#[tools(args)]`, taking the tool attributes off
/// its methods. Grammar errors are recorded in `cx`; the rest is for `check_set`.
pub(crate) fn parse_tool_set(
    cx: &mut Ctxt,
    args: TokenStream,
    item: &mut syn::ItemImpl,
) -> ToolSetDef {
    let SetArgs {
        crate_path,
        dialects,
    } = parse_set_args(cx, args);
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
    let mut set = ToolSetDef {
        self_ty: self_ty.clone(),
        crate_path,
        trait_path: item.trait_.as_ref().map(|(_, path, _)| path.clone()),
        generics: (!item.generics.params.is_empty()).then(|| item.generics.clone()),
        tools: Vec::new(),
        name_value_attrs: Vec::new(),
        crate_on_methods: Vec::new(),
    };
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
                set.name_value_attrs.push(nv.clone());
                TokenStream::new()
            }
        };
        let mut attr = parse_tool_attr(cx, tokens);
        // The block's dialects, for a method that names none of its own.
        if attr.options.dialects.is_none() {
            attr.options.dialects.clone_from(&dialects);
        }
        if let Some(hook) = &mut attr.options.confirm {
            sibling_method(hook, &methods, false);
        }
        if let Some(hook) = &mut attr.options.compensate {
            sibling_method(hook, &methods, true);
        }
        if let Some(path) = attr.options.crate_path.take() {
            set.crate_on_methods.push(path);
        }
        let def: ToolDef = parse_tool_fn(
            cx,
            attr,
            &method.attrs,
            &method.vis,
            &mut method.sig,
            Owner::Impl { self_ty: &self_ty },
        );
        set.tools.push(def);
    }
    set
}

/// What `#[tools(...)]` said.
struct SetArgs {
    crate_path: Option<syn::Path>,
    /// `dialects(...)`: the dialects every tool of the block is checked against, unless it
    /// names its own.
    dialects: Option<Vec<syn::Ident>>,
}

fn parse_set_args(cx: &mut Ctxt, args: TokenStream) -> SetArgs {
    let mut crate_path = None;
    let mut dialects = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident(CRATE) {
            if crate_path.is_some() {
                cx.error_spanned_by(&meta.path, "duplicate `crate` in `#[tools]`");
            }
            crate_path = Some(meta.value()?.parse::<syn::Path>()?);
        } else if meta.path.is_ident(DIALECTS) {
            let listed = parse_dialects(cx, &meta)?;
            if dialects.is_some() {
                cx.error_spanned_by(&meta.path, "duplicate `dialects` in `#[tools]`");
            } else {
                dialects = Some(listed);
            }
        } else {
            let shown = display_path(&meta.path);
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
    SetArgs {
        crate_path,
        dialects,
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
