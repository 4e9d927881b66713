//! `define_tool!`'s input: attributes (doc comment, `#[tool(...)]`) and a closure whose typed
//! parameters declare the tool's arguments.

use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprClosure, Pat};

use crate::ctxt::Ctxt;
use crate::model::{Callee, InlineAttrs, Rejected, Shape, ToolDef, Unnamed};
use crate::parse::attr::{parse_tool_attr, ToolAttr};
use crate::parse::doc::doc_text;
use crate::parse::item::parse_param;
use crate::symbol::{DOC, TOOL};

/// The tokens of one `define_tool!` call.
pub(crate) struct InlineInput {
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) closure: ExprClosure,
}

impl Parse for InlineInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let expr: Expr = input.parse()?;
        let closure = match expr {
            Expr::Closure(closure) => closure,
            Expr::Path(path) => {
                return Err(syn::Error::new_spanned(
                    path,
                    "`define_tool!` takes a closure, not a path: put `#[tool]` on a `fn` instead, or call it from a closure (`|city: String| get_weather(city)`)",
                ))
            }
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "`define_tool!` takes a closure: `move |city: String| { ... }`",
                ))
            }
        };
        // A trailing comma is fine; anything else is not.
        let _ = input.parse::<Option<syn::Token![,]>>()?;
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the tool's closure"));
        }
        Ok(Self { attrs, closure })
    }
}

/// Builds the model of an inline tool, stripping the parameter attributes from the closure.
pub(crate) fn parse_inline(cx: &mut Ctxt, input: &mut InlineInput) -> ToolDef {
    let mut tool_attr: Option<ToolAttr> = None;
    let mut tool_attr_tokens: Option<&Attribute> = None;
    let mut docs = Vec::new();
    let mut inline_attrs = InlineAttrs::default();
    for attribute in &input.attrs {
        if attribute.path().is_ident(DOC) {
            docs.push(attribute.clone());
        } else if attribute.path().is_ident(TOOL) {
            if tool_attr.is_some() {
                inline_attrs.repeated_tool.push(attribute.clone());
                continue;
            }
            let tokens = match &attribute.meta {
                syn::Meta::List(list) => list.tokens.clone(),
                _ => proc_macro2::TokenStream::new(),
            };
            tool_attr = Some(parse_tool_attr(cx, tokens));
            tool_attr_tokens = Some(attribute);
        } else {
            inline_attrs.foreign.push(attribute.clone());
        }
    }
    let attr = tool_attr.unwrap_or_default();
    let closure = &mut input.closure;
    let bar = closure.or1_token.span;
    let (name, name_span) = match attr.name {
        Some(name) => name,
        // At the `#[tool(...)]` the name belongs in, else at the closure.
        None => {
            inline_attrs.unnamed = Some(match tool_attr_tokens {
                Some(attribute) => Unnamed::InAttribute(attribute.clone()),
                None => Unnamed::BeforeClosure(bar),
            });
            (String::from("unnamed"), bar)
        }
    };
    let mut shape = Shape {
        closure_lifetimes: closure.lifetimes.clone(),
        ..Shape::default()
    };
    let mut params = Vec::new();
    for input in closure.inputs.iter_mut() {
        match input {
            Pat::Type(typed) => {
                if let Some(param) = parse_param(cx, typed, &mut shape) {
                    params.push(param);
                }
            }
            other => shape.rejected.push(Rejected::Untyped(other.clone())),
        }
    }
    let is_async = closure.asyncness.is_some() || ends_in_async_block(&closure.body);
    let output = match &closure.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    ToolDef {
        name,
        name_span,
        description: attr.description.or_else(|| doc_text(&docs)),
        params,
        args_ident: syn::Ident::new("__ToolArgs", proc_macro2::Span::call_site()),
        vis: syn::Visibility::Inherited,
        callee: Callee::Inline,
        is_async,
        output,
        options: attr.options,
        shape,
        inline_attrs,
        span: closure.span(),
        value_span: value_span(&closure.body),
    }
}

/// An `async` block, or a block whose value is one (`{ let state = state.clone(); async move
/// { .. } }`). Read from the syntax: a future the body returns in any other way is reported by
/// the generated code (`__private::AwaitedValue`), so a miss fails loudly.
fn ends_in_async_block(body: &Expr) -> bool {
    match body {
        Expr::Async(_) => true,
        Expr::Paren(paren) => ends_in_async_block(&paren.expr),
        Expr::Block(block) => match block.block.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => ends_in_async_block(tail),
            _ => false,
        },
        _ => false,
    }
}

/// The value a closure's body ends with: the tail of a block or `async` block, else the body.
fn value_span(body: &Expr) -> proc_macro2::Span {
    let block = match body {
        Expr::Block(block) => &block.block,
        Expr::Async(block) => &block.block,
        other => return other.span(),
    };
    match block.stmts.last() {
        Some(syn::Stmt::Expr(tail, None)) => value_span(tail),
        _ => body.span(),
    }
}
