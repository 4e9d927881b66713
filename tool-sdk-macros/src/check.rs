//! Rules over a whole parsed tool, one function per rule; each records spanned errors.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{GenericArgument, PathArguments, Type};

use crate::ctxt::Ctxt;
use crate::model::{DefaultValue, ParamKind, Rejected, ToolDef, ToolSetDef, Unnamed};
use crate::settings::settings;

/// Runs every rule on an impl block under `#[tools]` and on each of its tools.
pub(crate) fn check_set(cx: &mut Ctxt, set: &ToolSetDef) {
    check_set_is_inherent(cx, set);
    check_set_generics(cx, set);
    check_tool_attr_form(cx, set);
    check_crate_on_methods(cx, set);
    for (i, def) in set.tools.iter().enumerate() {
        check(cx, def);
        check_distinct_tool_name(cx, &set.tools[..i], def);
    }
    check_set_has_tools(cx, set);
}

/// A trait impl's methods are the trait's: the tool set belongs on the type's own impl.
fn check_set_is_inherent(cx: &mut Ctxt, set: &ToolSetDef) {
    if let Some(path) = &set.trait_path {
        cx.error_spanned_by(
            path,
            "`#[tools]` goes on an inherent impl block, not on a trait impl",
        );
    }
}

/// Each tool's schema is fixed at compile time, once for the block.
fn check_set_generics(cx: &mut Ctxt, set: &ToolSetDef) {
    if let Some(generics) = &set.generics {
        cx.error_spanned_by(
            generics,
            "`#[tools]` cannot be used on a generic impl block: each tool's schema is fixed at compile time",
        );
    }
}

/// `#[tool = ...]` has no meaning; the keys go in parentheses.
fn check_tool_attr_form(cx: &mut Ctxt, set: &ToolSetDef) {
    for nv in &set.name_value_attrs {
        cx.error_spanned_by(nv, "write `#[tool]` or `#[tool(key = value, ...)]`");
    }
}

/// The tools of a block share one generated `ToolSet`, so one crate path.
fn check_crate_on_methods(cx: &mut Ctxt, set: &ToolSetDef) {
    for path in &set.crate_on_methods {
        cx.error_spanned_by(
            path,
            "inside `#[tools]`, give `crate = path` on `#[tools(...)]` itself",
        );
    }
}

/// A set registers all its tools; two with one name would make the set fail to register.
fn check_distinct_tool_name(cx: &mut Ctxt, earlier: &[ToolDef], def: &ToolDef) {
    if earlier.iter().any(|d| d.name == def.name) {
        cx.error_at(
            def.name_span,
            format!("two tools of this impl block are named `{}`", def.name),
        );
    }
}

/// `#[tools]` on a block without tools is a forgotten `#[tool]`.
fn check_set_has_tools(cx: &mut Ctxt, set: &ToolSetDef) {
    if set.tools.is_empty() {
        cx.error_spanned_by(
            &set.self_ty,
            "no method of this impl block carries `#[tool]`",
        );
    }
}

/// Runs every rule on `def`.
pub(crate) fn check(cx: &mut Ctxt, def: &ToolDef) {
    check_inline_attrs(cx, def);
    check_inline_name(cx, def);
    check_generics(cx, def);
    check_unsafe(cx, def);
    check_variadic(cx, def);
    check_receiver(cx, def);
    check_closure_lifetimes(cx, def);
    check_rejected_params(cx, def);
    check_context_attrs(cx, def);
    check_arg_on_context(cx, def);
    check_context_by_reference(cx, def);
    check_described_twice(cx, def);
    check_name(cx, def);
    check_description(cx, def);
    check_wire_names(cx, def);
    check_defaults(cx, def);
    check_nested_borrows(cx, def);
    check_compensate_context(cx, def);
    check_package_settings(cx);
}

/// The package's settings for the macros (`[package.metadata.tool-sdk]` in its manifest) are
/// well formed: a mistake there fails every tool of the package, at the macro that read them,
/// rather than leaving its tools unchecked without a word.
fn check_package_settings(cx: &mut Ctxt) {
    if let Some(problem) = &settings().problem {
        cx.error_at(Span::call_site(), problem);
    }
}

/// `define_tool!` reads a doc comment and one `#[tool(...)]`: a second would leave unclear which
/// keys hold, and any other attribute would be dropped without effect.
fn check_inline_attrs(cx: &mut Ctxt, def: &ToolDef) {
    for attribute in &def.inline_attrs.repeated_tool {
        cx.error_spanned_by(attribute, "duplicate `#[tool(...)]`: put every key in one");
    }
    for attribute in &def.inline_attrs.foreign {
        cx.error_spanned_by(
            attribute,
            "`define_tool!` accepts a doc comment and `#[tool(...)]` only",
        );
    }
}

/// A closure has no name to take the tool's from: it must be given.
fn check_inline_name(cx: &mut Ctxt, def: &ToolDef) {
    match &def.inline_attrs.unnamed {
        None => {}
        Some(Unnamed::InAttribute(attribute)) => cx.error_spanned_by(
            attribute,
            "an inline tool needs a name: add `name = \"...\"` to `#[tool(...)]`",
        ),
        Some(Unnamed::BeforeClosure(bar)) => cx.error_at(
            *bar,
            "an inline tool needs a name: add `#[tool(name = \"...\")]` before the closure",
        ),
    }
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

/// A tool's schema is fixed at compile time; a generic function has one per instantiation.
fn check_generics(cx: &mut Ctxt, def: &ToolDef) {
    if let Some(generics) = &def.shape.generics {
        cx.error_spanned_by(
            generics,
            "a tool cannot be generic: its schema is fixed at compile time; call the generic function from a tool with concrete types",
        );
    }
}

/// Nothing a model sends can uphold an `unsafe fn`'s contract.
fn check_unsafe(cx: &mut Ctxt, def: &ToolDef) {
    if let Some(token) = &def.shape.unsafety {
        cx.error_spanned_by(
            token,
            "a tool cannot be an `unsafe fn`: a model's call cannot uphold its safety contract",
        );
    }
}

/// A variadic function has no fixed list of arguments to describe.
fn check_variadic(cx: &mut Ctxt, def: &ToolDef) {
    if let Some(variadic) = &def.shape.variadic {
        cx.error_spanned_by(variadic, "a tool cannot be variadic");
    }
}

/// A tool is called many times, possibly at once: a method takes `&self` only; and a method
/// can be a tool only where `#[tools]` can build the instance's tool type.
fn check_receiver(cx: &mut Ctxt, def: &ToolDef) {
    let Some((receiver, in_tools)) = &def.shape.receiver else {
        return;
    };
    let message = if !in_tools {
        "`#[tool]` on a method needs `#[tools]` on its impl block"
    } else if receiver.colon_token.is_some() {
        "a tool method takes `&self`; other receiver types are not supported"
    } else if receiver.reference.is_none() {
        "a tool method takes `&self`, not `self`: a tool is called many times and cannot consume its instance"
    } else if receiver.mutability.is_some() {
        "a tool method takes `&self`, not `&mut self`: calls may run concurrently; keep mutable state behind a `Mutex`"
    } else {
        return;
    };
    cx.error_spanned_by(receiver, message);
}

/// The closure of `define_tool!` is stored and called for every call, with fresh lifetimes.
fn check_closure_lifetimes(cx: &mut Ctxt, def: &ToolDef) {
    if let Some(lifetimes) = &def.shape.closure_lifetimes {
        cx.error_spanned_by(
            lifetimes,
            "an inline tool's closure cannot be generic over lifetimes",
        );
    }
}

/// Each parameter is decoded from one named JSON property into one concrete type.
fn check_rejected_params(cx: &mut Ctxt, def: &ToolDef) {
    for rejected in &def.shape.rejected {
        match rejected {
            Rejected::Pattern(pat) => cx.error_spanned_by(
                pat,
                "a tool parameter must be a plain name: destructuring patterns are not supported; name the parameter and destructure inside the function",
            ),
            Rejected::ImplTrait(ty) => cx.error_spanned_by(
                ty,
                "a tool parameter cannot be `impl Trait`: the argument is decoded into a concrete type; name one",
            ),
            Rejected::MutRef(ty) => cx.error_spanned_by(
                ty,
                "a tool parameter cannot be `&mut`: arguments are decoded for the call; take the value",
            ),
            Rejected::Untyped(pat) => cx.error_spanned_by(
                pat,
                "a parameter of an inline tool needs a type: write `name: Type`",
            ),
        }
    }
}

/// `#[context]` is a marker: anything more would be ignored, and twice says nothing more.
fn check_context_attrs(cx: &mut Ctxt, def: &ToolDef) {
    for param in &def.params {
        for (i, attribute) in param.attrs.context.iter().enumerate() {
            if !matches!(attribute.meta, syn::Meta::Path(_)) {
                cx.error_spanned_by(attribute, "`#[context]` takes no arguments");
            } else if i > 0 {
                cx.error_spanned_by(attribute, "duplicate `#[context]`");
            }
        }
    }
}

/// A context parameter is not in the schema, so what `#[arg]` says of it would be lost.
fn check_arg_on_context(cx: &mut Ctxt, def: &ToolDef) {
    for param in &def.params {
        if let (ParamKind::Context, Some(arg)) = (&param.kind, &param.attrs.arg) {
            cx.error_spanned_by(
                arg,
                "a `#[context]` parameter is not part of the schema, so `#[arg]` does not apply to it; remove `#[arg(...)]`",
            );
        }
    }
}

/// A context value is built for each call and handed over, so there is nothing to borrow from.
fn check_context_by_reference(cx: &mut Ctxt, def: &ToolDef) {
    for param in &def.params {
        if matches!(param.kind, ParamKind::Context) && matches!(param.ty, Type::Reference(_)) {
            cx.error_spanned_by(
                &param.ty,
                "a `#[context]` parameter is taken by value, not by reference: remove the `&` (the value is built for each call)",
            );
        }
    }
}

/// Two descriptions of one parameter: one would be silently dropped.
fn check_described_twice(cx: &mut Ctxt, def: &ToolDef) {
    for param in &def.params {
        if let (true, Some(arg)) = (param.attrs.described_twice, &param.attrs.arg) {
            cx.error_spanned_by(
                arg,
                "the parameter is described twice: by its doc comment and by `#[arg(description)]`; keep one",
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

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;
    use crate::parse::attr::parse_tool_attr;
    use crate::parse::item::{parse_tool_fn, Owner};

    fn error_count(cx: Ctxt) -> usize {
        cx.check()
            .err()
            .map_or(0, |errors| errors.into_iter().count())
    }

    #[test]
    fn parsing_judges_nothing_and_check_reports_every_mistake() {
        let mut item: syn::ItemFn = syn::parse_quote! {
            /// Scales.
            unsafe fn scale<T>((x, y): (f64, f64), #[context] #[arg(rename = "f")] f: &CallId) {}
        };
        let mut cx = Ctxt::default();
        let attr = parse_tool_attr(&mut cx, quote!());
        let def = parse_tool_fn(
            &mut cx,
            attr,
            &item.attrs,
            &item.vis,
            &mut item.sig,
            Owner::Free,
        );
        assert_eq!(error_count(cx), 0, "parse reported a rule");
        let mut cx = Ctxt::default();
        check(&mut cx, &def);
        // Generic, unsafe, destructuring, `#[arg]` on a context parameter, a borrowed one.
        assert_eq!(error_count(cx), 5);
    }
}
