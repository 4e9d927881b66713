//! Reads a function signature into a [`ToolDef`], stripping the parameter attributes it consumed
//! so the function can be emitted again as the user wrote it.

use quote::format_ident;
use syn::ext::IdentExt;
use syn::visit_mut::VisitMut;
use syn::{Attribute, FnArg, Pat, Signature, Type, Visibility};

use crate::ctxt::Ctxt;
use crate::model::{Argument, Callee, Param, ParamKind, ToolDef};
use crate::parse::attr::{parse_arg_attr, ArgAttr, ToolAttr};
use crate::parse::doc::doc_text;
use crate::symbol::{ARG, CONTEXT, DOC};

/// Where the function lives.
pub(crate) enum Owner<'a> {
    /// A free function under `#[tool]`.
    Free,
    /// A method of an impl block under `#[tools]`.
    Impl { self_ty: &'a Type },
}

/// Builds the model of one tool function. Every problem is recorded in `cx`; the model is
/// returned regardless, so later checks still run.
pub(crate) fn parse_tool_fn(
    cx: &mut Ctxt,
    attr: ToolAttr,
    fn_attrs: &[Attribute],
    vis: &Visibility,
    sig: &mut Signature,
    owner: Owner<'_>,
) -> ToolDef {
    check_signature_shape(cx, sig);
    let mut receiver = false;
    let mut params = Vec::new();
    for input in sig.inputs.iter_mut() {
        match input {
            FnArg::Receiver(r) => receiver |= check_receiver(cx, r, &owner),
            FnArg::Typed(typed) => {
                if let Some(mut param) = parse_param(cx, typed) {
                    if let Owner::Impl { self_ty } = owner {
                        ReplaceSelf(self_ty).visit_type_mut(&mut param.ty);
                        if let ParamKind::Argument(Argument {
                            borrowed: Some(inner),
                            ..
                        }) = &mut param.kind
                        {
                            ReplaceSelf(self_ty).visit_type_mut(inner);
                        }
                    }
                    params.push(param);
                }
            }
        }
    }

    let (name, name_span) = match attr.name {
        Some(name) => name,
        None => (sig.ident.unraw().to_string(), sig.ident.span()),
    };
    let description = attr.description.or_else(|| doc_text(fn_attrs));
    let callee = match owner {
        Owner::Free => Callee::Free(sig.ident.clone()),
        Owner::Impl { self_ty } => Callee::Method {
            ident: sig.ident.clone(),
            self_ty: self_ty.clone(),
            receiver,
        },
    };
    let output = match &sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    ToolDef {
        name,
        name_span,
        description,
        params,
        args_ident: format_ident!("{}Args", camel_case(&sig.ident), span = sig.ident.span()),
        vis: vis.clone(),
        callee,
        is_async: sig.asyncness.is_some(),
        output,
        options: attr.options,
        span: sig.ident.span(),
        value_span: sig.ident.span(),
    }
}

/// `get_weather` → `GetWeather`: the stem of the names of a function's generated types.
pub(crate) fn camel_case(fn_ident: &syn::Ident) -> String {
    fn_ident
        .unraw()
        .to_string()
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

fn check_signature_shape(cx: &mut Ctxt, sig: &Signature) {
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            "a tool cannot be generic: its schema is fixed at compile time; call the generic function from a tool with concrete types",
        );
    }
    if let Some(token) = &sig.unsafety {
        cx.error_spanned_by(
            token,
            "a tool cannot be an `unsafe fn`: a model's call cannot uphold its safety contract",
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, "a tool cannot be variadic");
    }
}

/// Checks `self` and answers whether the method takes `&self`.
fn check_receiver(cx: &mut Ctxt, receiver: &syn::Receiver, owner: &Owner<'_>) -> bool {
    if matches!(owner, Owner::Free) {
        cx.error_spanned_by(
            receiver,
            "`#[tool]` on a method needs `#[tools]` on its impl block",
        );
        return false;
    }
    if receiver.colon_token.is_some() {
        cx.error_spanned_by(
            receiver,
            "a tool method takes `&self`; other receiver types are not supported",
        );
        false
    } else if receiver.reference.is_none() {
        cx.error_spanned_by(
            receiver,
            "a tool method takes `&self`, not `self`: a tool is called many times and cannot consume its instance",
        );
        false
    } else if receiver.mutability.is_some() {
        cx.error_spanned_by(
            receiver,
            "a tool method takes `&self`, not `&mut self`: calls may run concurrently; keep mutable state behind a `Mutex`",
        );
        false
    } else {
        true
    }
}

pub(crate) fn parse_param(cx: &mut Ctxt, typed: &mut syn::PatType) -> Option<Param> {
    let mut arg_attr = ArgAttr::default();
    let mut arg_keys = Vec::new();
    // Kept whole, so an error about one covers the whole attribute (a span taken from a
    // multi-token node covers only its first token on stable).
    let mut first_arg_attr: Option<Attribute> = None;
    let mut context_attr: Option<Attribute> = None;
    let mut doc_attrs = Vec::new();
    let mut kept = Vec::new();
    for attribute in std::mem::take(&mut typed.attrs) {
        if attribute.path().is_ident(ARG) {
            first_arg_attr.get_or_insert_with(|| attribute.clone());
            parse_arg_attr(cx, &attribute, &mut arg_attr, &mut arg_keys);
        } else if attribute.path().is_ident(CONTEXT) {
            if !matches!(attribute.meta, syn::Meta::Path(_)) {
                cx.error_spanned_by(&attribute, "`#[context]` takes no arguments");
            } else if context_attr.is_some() {
                cx.error_spanned_by(&attribute, "duplicate `#[context]`");
            }
            context_attr.get_or_insert_with(|| attribute.clone());
        } else if attribute.path().is_ident(DOC) {
            doc_attrs.push(attribute);
        } else {
            kept.push(attribute);
        }
    }
    typed.attrs = kept;

    let ident = match &*typed.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
        pat => {
            cx.error_spanned_by(
                pat,
                "a tool parameter must be a plain name: destructuring patterns are not supported; name the parameter and destructure inside the function",
            );
            return None;
        }
    };
    let ty = (*typed.ty).clone();
    if contains_impl_trait(&ty) {
        cx.error_spanned_by(
            &ty,
            "a tool parameter cannot be `impl Trait`: the argument is decoded into a concrete type; name one",
        );
        return None;
    }
    let borrowed = match &ty {
        Type::Reference(reference) if reference.mutability.is_some() => {
            cx.error_spanned_by(
                &ty,
                "a tool parameter cannot be `&mut`: arguments are decoded for the call; take the value",
            );
            return None;
        }
        Type::Reference(reference) => Some((*reference.elem).clone()),
        _ => None,
    };

    if context_attr.is_some() {
        if let Some(arg_attr) = &first_arg_attr {
            cx.error_spanned_by(
                arg_attr,
                "a `#[context]` parameter is not part of the schema, so `#[arg]` does not apply to it; remove `#[arg(...)]`",
            );
        }
        if borrowed.is_some() {
            cx.error_spanned_by(
                &ty,
                "a `#[context]` parameter is taken by value, not by reference: remove the `&` (the value is built for each call)",
            );
        }
        return Some(Param {
            ident,
            ty,
            kind: ParamKind::Context,
        });
    }

    let doc = doc_text(&doc_attrs);
    if arg_attr.description.is_some() && doc.is_some() {
        let message = "the parameter is described twice: by its doc comment and by `#[arg(description)]`; keep one";
        match &first_arg_attr {
            Some(arg_attr) => cx.error_spanned_by(arg_attr, message),
            None => cx.error_spanned_by(&*typed, message),
        }
    }
    let (wire_name, wire_span) = arg_attr
        .rename
        .unwrap_or_else(|| (ident.unraw().to_string(), ident.span()));
    Some(Param {
        ident,
        ty,
        kind: ParamKind::Argument(Argument {
            wire_name,
            wire_span,
            description: arg_attr.description.or(doc),
            default: arg_attr.default,
            borrowed,
        }),
    })
}

fn contains_impl_trait(ty: &Type) -> bool {
    match ty {
        Type::ImplTrait(_) => true,
        Type::Reference(r) => contains_impl_trait(&r.elem),
        Type::Paren(p) => contains_impl_trait(&p.elem),
        Type::Group(g) => contains_impl_trait(&g.elem),
        _ => false,
    }
}

/// Rewrites `Self` in `ty` to the impl's type `self_ty`.
pub(crate) fn replace_self(ty: &mut Type, self_ty: &Type) {
    ReplaceSelf(self_ty).visit_type_mut(ty);
}

/// Rewrites `Self` in a method's parameter types to the impl's type, since the generated
/// arguments struct lives outside the impl block.
struct ReplaceSelf<'a>(&'a Type);

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(path) = ty {
            if path.qself.is_none() && path.path.is_ident("Self") {
                *ty = self.0.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    fn visit_type_path_mut(&mut self, path: &mut syn::TypePath) {
        if path.qself.is_none()
            && path.path.segments.len() > 1
            && path.path.segments[0].ident == "Self"
        {
            // `Self::Assoc` becomes `<Type>::Assoc`.
            let rest: Vec<_> = path.path.segments.iter().skip(1).cloned().collect();
            path.qself = Some(syn::QSelf {
                lt_token: Default::default(),
                ty: Box::new(self.0.clone()),
                position: 0,
                as_token: None,
                gt_token: Default::default(),
            });
            path.path = syn::Path {
                leading_colon: Some(Default::default()),
                segments: rest.into_iter().collect(),
            };
        }
        syn::visit_mut::visit_type_path_mut(self, path);
    }
}
