//! Hooks (`confirm = ..`, `compensate = ..`) read from their expression: a closure's parameters
//! are visible and become part of the model; any other expression is called as it is.

use quote::ToTokens;
use syn::{Expr, ExprClosure, Pat};

use crate::model::{ExtraParam, Hook};

/// The hook an expression gives. `fixed` is how many parameters every hook of its kind takes;
/// a closure's parameters beyond those are its extra parameters.
pub(crate) fn hook_from_expr(expr: Expr, fixed: usize) -> Hook {
    let Some(closure) = closure_value(&expr) else {
        return Hook::Call(expr);
    };
    let is_async = closure.asyncness.is_some();
    let extra = closure
        .inputs
        .iter()
        .skip(fixed)
        .map(|pat| match pat {
            Pat::Type(typed) => ExtraParam {
                pat: typed.pat.to_token_stream(),
                ty: Some((*typed.ty).clone()),
            },
            other => ExtraParam {
                pat: other.to_token_stream(),
                ty: None,
            },
        })
        .collect();
    Hook::Closure {
        expr,
        is_async,
        extra,
    }
}

/// The closure an expression evaluates to when it is one, written as the expression itself or
/// as the value of a block (`{ let todos = todos.clone(); move |..| .. }`).
fn closure_value(expr: &Expr) -> Option<&ExprClosure> {
    match expr {
        Expr::Closure(closure) => Some(closure),
        Expr::Paren(paren) => closure_value(&paren.expr),
        Expr::Block(block) => match block.block.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => closure_value(tail),
            _ => None,
        },
        _ => None,
    }
}

/// The extra parameters of a method named as a hook: its typed parameters after the first
/// `fixed` (the receiver not counted).
pub(crate) fn method_extra(sig: &syn::Signature, fixed: usize) -> Vec<ExtraParam> {
    sig.inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(typed) => Some(typed),
            syn::FnArg::Receiver(_) => None,
        })
        .skip(fixed)
        .map(|typed| ExtraParam {
            pat: typed.pat.to_token_stream(),
            ty: Some((*typed.ty).clone()),
        })
        .collect()
}
