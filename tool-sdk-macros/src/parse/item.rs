//! Reads a function signature into a [`ToolDef`], stripping the parameter attributes it consumed
//! so the function can be emitted again as the user wrote it.

use quote::format_ident;
use syn::ext::IdentExt;
use syn::visit_mut::VisitMut;
use syn::{Attribute, FnArg, Pat, Signature, Type, Visibility};

use crate::ctxt::Ctxt;
use crate::model::{
    Argument, Callee, InlineAttrs, Param, ParamAttrs, ParamKind, Rejected, Shape, ToolDef,
};
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

/// Builds the model of one tool function. Grammar errors (attribute keys) are recorded in `cx`;
/// what the signature shows is recorded in the model, for `check` to judge.
pub(crate) fn parse_tool_fn(
    cx: &mut Ctxt,
    attr: ToolAttr,
    fn_attrs: &[Attribute],
    vis: &Visibility,
    sig: &mut Signature,
    owner: Owner<'_>,
) -> ToolDef {
    let mut shape = Shape {
        generics: (!sig.generics.params.is_empty() || sig.generics.where_clause.is_some())
            .then(|| sig.generics.clone()),
        unsafety: sig.unsafety,
        variadic: sig.variadic.clone(),
        ..Shape::default()
    };
    let mut params = Vec::new();
    for input in sig.inputs.iter_mut() {
        match input {
            FnArg::Receiver(r) => {
                shape.receiver = Some((r.clone(), matches!(owner, Owner::Impl { .. })));
            }
            FnArg::Typed(typed) => {
                if let Some(mut param) = parse_param(cx, typed, &mut shape) {
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
            receiver: shape
                .receiver
                .as_ref()
                .is_some_and(|(receiver, _)| takes_shared_self(receiver)),
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
        shape,
        inline_attrs: InlineAttrs::default(),
        span: sig.ident.span(),
        value_span: sig.ident.span(),
    }
}

/// `&self`, the one receiver a tool method takes (read from the syntax: `self: &Self` is
/// reported by `check` as unsupported rather than taken).
pub(crate) fn takes_shared_self(receiver: &syn::Receiver) -> bool {
    receiver.colon_token.is_none() && receiver.reference.is_some() && receiver.mutability.is_none()
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

/// Reads one parameter into the model, taking the tool attributes off it. A parameter that
/// cannot be part of a tool is recorded in `shape` instead, and `None` comes back.
pub(crate) fn parse_param(
    cx: &mut Ctxt,
    typed: &mut syn::PatType,
    shape: &mut Shape,
) -> Option<Param> {
    let mut arg_attr = ArgAttr::default();
    let mut arg_keys = Vec::new();
    let mut attrs = ParamAttrs::default();
    let mut doc_attrs = Vec::new();
    let mut kept = Vec::new();
    for attribute in std::mem::take(&mut typed.attrs) {
        if attribute.path().is_ident(ARG) {
            attrs.arg.get_or_insert_with(|| attribute.clone());
            parse_arg_attr(cx, &attribute, &mut arg_attr, &mut arg_keys);
        } else if attribute.path().is_ident(CONTEXT) {
            attrs.context.push(attribute);
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
            shape.rejected.push(Rejected::Pattern(pat.clone()));
            return None;
        }
    };
    let ty = (*typed.ty).clone();
    if contains_impl_trait(&ty) {
        shape.rejected.push(Rejected::ImplTrait(ty));
        return None;
    }
    let borrowed = match &ty {
        Type::Reference(reference) if reference.mutability.is_some() => {
            shape.rejected.push(Rejected::MutRef(ty));
            return None;
        }
        Type::Reference(reference) => Some((*reference.elem).clone()),
        _ => None,
    };

    if !attrs.context.is_empty() {
        return Some(Param {
            ident,
            ty,
            kind: ParamKind::Context,
            attrs,
        });
    }

    let doc = doc_text(&doc_attrs);
    attrs.described_twice = arg_attr.description.is_some() && doc.is_some();
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
            unchecked: arg_attr.unchecked,
        }),
        attrs,
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
