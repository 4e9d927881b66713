//! Rules over a whole parsed tool, one function per rule; each records spanned errors.

use crate::ctxt::Ctxt;
use crate::model::{DefaultValue, ToolDef};

/// Runs every rule on `def`.
pub(crate) fn check(cx: &mut Ctxt, def: &ToolDef) {
    check_name(cx, def);
    check_description(cx, def);
    check_wire_names(cx, def);
    check_defaults(cx, def);
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
            .map(|c| format!("`{}` is not allowed", c.escape_default()))
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
