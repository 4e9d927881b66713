//! Rules over a whole parsed tool, one function per rule; each records spanned errors.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{GenericArgument, PathArguments, Type};

use crate::ctxt::Ctxt;
use crate::model::{DefaultValue, ToolDef};

/// Runs every rule on `def`.
pub(crate) fn check(cx: &mut Ctxt, def: &ToolDef) {
    check_name(cx, def);
    check_description(cx, def);
    check_wire_names(cx, def);
    check_defaults(cx, def);
    check_nested_borrows(cx, def);
    check_compensate_context(cx, def);
}

/// A compensating action's parameters after the arguments and the output are filled from the
/// call's context, by their type; a closure parameter written without one cannot be.
fn check_compensate_context(cx: &mut Ctxt, def: &ToolDef) {
    let Some(hook) = &def.options.compensate else {
        return;
    };
    for extra in hook.extra() {
        if extra.ty.is_none() {
            cx.error_spanned_by(
                &extra.pat,
                "a compensating action takes the tool's arguments, its output, then context parameters, each with its type (`call: CallId`, `state: State<T>`): write this parameter's type",
            );
        }
    }
}

/// Providers accept tool names matching `^[a-zA-Z0-9_-]{1,64}$` only; a name they refuse would
/// fail at the first request, so it fails here instead.
fn check_name(cx: &mut Ctxt, def: &ToolDef) {
    let name = &def.name;
    let problem = if name.is_empty() {
        Some("it is empty".to_owned())
    } else if name.len() > 64 {
        Some(format!(
            "it is {} characters long; the limit is 64",
            name.len()
        ))
    } else {
        name.chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
            .map(|c| match c {
                ' ' => "spaces are not allowed".to_owned(),
                _ => format!("`{}` is not allowed", c.escape_default()),
            })
    };
    if let Some(problem) = problem {
        cx.error_at(
            def.name_span,
            format!("invalid tool name `{name}`: {problem}; a tool name matches `^[a-zA-Z0-9_-]{{1,64}}$`"),
        );
    }
}

/// The description is how a model decides to call the tool; a tool without one is a bug.
fn check_description(cx: &mut Ctxt, def: &ToolDef) {
    if def.description.is_none() {
        cx.error_at(
            def.span,
            "a tool needs a description: add a doc comment (`/// What it does.`) or `#[tool(description = \"...\")]`",
        );
    }
}

/// Two parameters with one wire name would make one of them impossible to pass.
fn check_wire_names(cx: &mut Ctxt, def: &ToolDef) {
    let arguments: Vec<_> = def.arguments().collect();
    for (i, (_, argument)) in arguments.iter().enumerate() {
        if arguments[..i]
            .iter()
            .any(|(_, earlier)| earlier.wire_name == argument.wire_name)
        {
            cx.error_at(
                argument.wire_span,
                format!(
                    "two parameters are named `{}` in the tool's arguments; rename one",
                    argument.wire_name
                ),
            );
        }
    }
}

/// `#[arg(default)]` on a borrowed parameter would need a default of the owned type; say so
/// rather than leave the user with a type error on generated code.
fn check_defaults(cx: &mut Ctxt, def: &ToolDef) {
    for (param, argument) in def.arguments() {
        if let (Some(DefaultValue::Expr(_) | DefaultValue::Trait), Some(_)) =
            (&argument.default, &argument.borrowed)
        {
            cx.error_spanned_by(
                &param.ty,
                "a parameter with a default must be owned (`String`, not `&str`)",
            );
        }
    }
}

/// An argument is decoded into an owned value; only the parameter itself (`&str`, `&[T]`) can
/// be lent from it. A borrow deeper in the type (`Option<&str>`) would otherwise fail in
/// generated code with a lifetime error.
fn check_nested_borrows(cx: &mut Ctxt, def: &ToolDef) {
    for (param, argument) in def.arguments() {
        let decoded = argument.borrowed.as_ref().unwrap_or(&param.ty);
        if let Some(borrow) = nested_borrow(decoded) {
            cx.error_spanned_by(
                borrow,
                "a tool argument is decoded into an owned value, so only the parameter itself can borrow (`&str`, `&[T]`); use an owned type here (`String`, `Vec<T>`)",
            );
        }
    }
}

/// The first reference or `'_` lifetime inside `ty`.
fn nested_borrow(ty: &Type) -> Option<TokenStream> {
    match ty {
        Type::Reference(_) => Some(ty.to_token_stream()),
        Type::Path(path) => {
            if let Some(found) = path.qself.as_ref().and_then(|q| nested_borrow(&q.ty)) {
                return Some(found);
            }
            path.path
                .segments
                .iter()
                .find_map(|segment| match &segment.arguments {
                    PathArguments::AngleBracketed(arguments) => {
                        arguments.args.iter().find_map(|argument| match argument {
                            GenericArgument::Type(ty) => nested_borrow(ty),
                            GenericArgument::Lifetime(lifetime) if lifetime.ident == "_" => {
                                Some(lifetime.to_token_stream())
                            }
                            _ => None,
                        })
                    }
                    _ => None,
                })
        }
        Type::Slice(slice) => nested_borrow(&slice.elem),
        Type::Array(array) => nested_borrow(&array.elem),
        Type::Paren(paren) => nested_borrow(&paren.elem),
        Type::Group(group) => nested_borrow(&group.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(nested_borrow),
        _ => None,
    }
}
