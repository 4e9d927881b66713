//! The grammar of `#[tool(...)]` and `#[arg(...)]`: every key matches or gets a spanned error,
//! and a key given twice is an error on its second use.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{LitStr, Token};

use crate::ctxt::Ctxt;
use crate::model::{DefaultValue, DeferMode, Hook, Options};
use crate::parse::hook::hook_from_expr;
use crate::resolve::display_path;
use crate::symbol::*;

/// What `#[tool(...)]` said.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) name: Option<(String, Span)>,
    pub(crate) description: Option<String>,
    pub(crate) options: Options,
}

/// What `#[arg(...)]` said on one parameter.
#[derive(Default)]
pub(crate) struct ArgAttr {
    pub(crate) rename: Option<(String, Span)>,
    pub(crate) description: Option<String>,
    pub(crate) default: Option<DefaultValue>,
    pub(crate) unchecked: bool,
}

/// Remembers which keys were seen, so a second use is reported where it stands.
#[derive(Default)]
struct Seen(Vec<String>);

impl Seen {
    /// `false` (after recording an error) when `key` was given before.
    fn first(&mut self, cx: &mut Ctxt, meta: &ParseNestedMeta<'_>, key: &str, attr: &str) -> bool {
        if self.0.iter().any(|k| k == key) {
            cx.error_spanned_by(&meta.path, format!("duplicate `{key}` in `#[{attr}]`"));
            return false;
        }
        self.0.push(key.to_owned());
        true
    }
}

/// Parses the arguments of `#[tool(...)]` (the attribute's own token stream).
pub(crate) fn parse_tool_attr(cx: &mut Ctxt, tokens: TokenStream) -> ToolAttr {
    let mut attr = ToolAttr::default();
    let mut seen = Seen::default();
    let parser = syn::meta::parser(|meta| {
        let Some(key) = known_key(cx, &meta, TOOL_KEYS, TOOL)? else {
            return Ok(());
        };
        let fresh = seen.first(cx, &meta, key, TOOL);
        match key {
            NAME => {
                let lit: LitStr = meta.value()?.parse()?;
                if fresh {
                    attr.name = Some((lit.value(), lit.span()));
                }
            }
            DESCRIPTION => {
                let lit: LitStr = meta.value()?.parse()?;
                if fresh {
                    attr.description = Some(lit.value());
                }
            }
            TIMEOUT => {
                let lit: LitStr = meta.value()?.parse()?;
                match parse_duration_millis(&lit.value()) {
                    Ok(millis) if fresh => attr.options.timeout_millis = Some(millis),
                    Ok(_) => {}
                    Err(message) => cx.error_spanned_by(&lit, message),
                }
            }
            RETURN_DIRECT => flag(cx, &meta, &mut attr.options.return_direct, fresh)?,
            OVERRIDES_BUILT_IN => flag(cx, &meta, &mut attr.options.overrides_built_in, fresh)?,
            SKIP_PERMISSION => flag(cx, &meta, &mut attr.options.skip_permission, fresh)?,
            READ_ONLY => flag(cx, &meta, &mut attr.options.read_only, fresh)?,
            LONG_RUNNING => flag(cx, &meta, &mut attr.options.long_running, fresh)?,
            RESULT_LIMIT => {
                let lit: syn::LitInt = meta.value()?.parse()?;
                match lit.base10_parse::<u64>() {
                    Ok(0) => cx.error_spanned_by(
                        &lit,
                        "`result_limit` is the bytes of a result the model reads: more than zero",
                    ),
                    Ok(bytes) if fresh => attr.options.result_limit = Some(bytes),
                    Ok(_) => {}
                    Err(error) => cx.error_spanned_by(&lit, error.to_string()),
                }
            }
            DESTRUCTIVE => {
                // Alone it says "yes"; `= false` states the opposite, which differs from
                // saying nothing (hosts assume a tool that says nothing may destroy).
                let value = if meta.input.peek(Token![=]) {
                    match meta.value()?.parse::<syn::Expr>()? {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Bool(lit),
                            ..
                        }) => Some(lit.value),
                        other => {
                            cx.error_spanned_by(
                                &other,
                                "`destructive` is a flag, or takes `true` or `false`",
                            );
                            None
                        }
                    }
                } else {
                    Some(true)
                };
                if fresh && value.is_some() {
                    attr.options.destructive = value;
                }
            }
            DEFER => {
                let mode = if meta.input.peek(Token![=]) {
                    let lit: LitStr = meta.value()?.parse()?;
                    match lit.value().as_str() {
                        "always" => Some(DeferMode::Always),
                        "auto" => Some(DeferMode::Auto),
                        "never" => Some(DeferMode::Never),
                        other => {
                            cx.error_spanned_by(
                                &lit,
                                format!(
                                    "unknown defer mode `{other}`; expected one of: {}",
                                    DEFER_VALUES.join(", ")
                                ),
                            );
                            None
                        }
                    }
                } else {
                    Some(DeferMode::Always)
                };
                if fresh {
                    attr.options.defer = mode;
                }
            }
            CONFIRM => {
                let hook = if meta.input.peek(Token![=]) {
                    // A predicate takes the arguments, one parameter each: none is extra.
                    hook_from_expr(meta.value()?.parse()?, usize::MAX)
                } else {
                    Hook::Always
                };
                if fresh {
                    attr.options.confirm = Some(hook);
                }
            }
            COMPENSATE => {
                let action: syn::Expr = meta.value()?.parse()?;
                if fresh {
                    attr.options.compensate = Some(hook_from_expr(action, COMPENSATE_FIXED));
                }
            }
            CRATE => {
                let path: syn::Path = meta.value()?.parse()?;
                if fresh {
                    attr.options.crate_path = Some(path);
                }
            }
            DIALECTS => {
                let dialects = parse_dialects(cx, &meta)?;
                if fresh {
                    attr.options.dialects = Some(dialects);
                }
            }
            _ => unreachable_key(cx, &meta),
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(tokens) {
        cx.syn_error(error);
    }
    attr
}

/// Parses one `#[arg(...)]` attribute into `into`.
pub(crate) fn parse_arg_attr(
    cx: &mut Ctxt,
    attribute: &syn::Attribute,
    into: &mut ArgAttr,
    seen_keys: &mut Vec<String>,
) {
    let mut seen = Seen(std::mem::take(seen_keys));
    let result = attribute.parse_nested_meta(|meta| {
        let Some(key) = known_key(cx, &meta, ARG_KEYS, ARG)? else {
            return Ok(());
        };
        let fresh = seen.first(cx, &meta, key, ARG);
        match key {
            RENAME => {
                let lit: LitStr = meta.value()?.parse()?;
                if fresh {
                    into.rename = Some((lit.value(), lit.span()));
                }
            }
            DESCRIPTION => {
                let lit: LitStr = meta.value()?.parse()?;
                if fresh {
                    into.description = Some(lit.value());
                }
            }
            DEFAULT => {
                let value = if meta.input.peek(Token![=]) {
                    DefaultValue::Expr(meta.value()?.parse()?)
                } else {
                    DefaultValue::Trait
                };
                if fresh {
                    into.default = Some(value);
                }
            }
            UNCHECKED => flag(cx, &meta, &mut into.unchecked, fresh)?,
            _ => unreachable_key(cx, &meta),
        }
        Ok(())
    });
    if let Err(error) = result {
        cx.syn_error(error);
    }
    *seen_keys = seen.0;
}

/// `dialects(openai_strict, gemini)`: each name as the variant of `Dialect` it is, spanned
/// where it is written; an unknown or repeated name is an error.
pub(crate) fn parse_dialects(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<Vec<syn::Ident>> {
    let mut dialects: Vec<syn::Ident> = Vec::new();
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(
            &meta.path,
            format!(
                "`dialects` lists the dialects to check, such as `dialects(openai_strict, \
                 gemini)`, or none: `dialects()`; the dialects are: {}",
                dialect_names()
            ),
        );
        return skip_value(meta).map(|()| dialects);
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let names = content.parse_terminated(syn::Path::parse_mod_style, Token![,])?;
    for path in names {
        let named = DIALECT_NAMES.iter().find(|(name, ..)| path.is_ident(name));
        match named {
            Some((name, variant, _)) => {
                let variant = syn::Ident::new(variant, path.span());
                if dialects.contains(&variant) {
                    cx.error_spanned_by(&path, format!("`{name}` is listed twice"));
                } else {
                    dialects.push(variant);
                }
            }
            None => cx.error_spanned_by(
                &path,
                format!(
                    "unknown dialect `{}`; the dialects are: {}",
                    display_path(&path),
                    dialect_names()
                ),
            ),
        }
    }
    Ok(dialects)
}

fn dialect_names() -> String {
    let names: Vec<&str> = DIALECT_NAMES.iter().map(|(name, ..)| *name).collect();
    names.join(", ")
}

/// The key of `meta` when it is one of `keys`; otherwise records an error, skips its value and
/// answers `None`.
fn known_key(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    keys: &'static [&'static str],
    attr: &str,
) -> syn::Result<Option<&'static str>> {
    if let Some(key) = keys.iter().find(|key| meta.path.is_ident(key)) {
        return Ok(Some(key));
    }
    let shown = display_path(&meta.path);
    cx.error_spanned_by(
        &meta.path,
        format!(
            "unknown key `{shown}` in `#[{attr}]`; expected one of: {}",
            keys.join(", ")
        ),
    );
    skip_value(meta)?;
    Ok(None)
}

/// Consumes the value of a key that is being reported, so parsing goes on after it.
pub(crate) fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

/// A key the match above lists but does not handle: a bug of this crate, reported as an error
/// rather than a panic.
fn unreachable_key(cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) {
    cx.error_spanned_by(&meta.path, "tool-sdk-macros does not handle this key yet");
}

fn flag(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    slot: &mut bool,
    fresh: bool,
) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let value = meta.value()?.parse::<syn::Expr>()?;
        cx.error_spanned_by(
            &value,
            "this option is a flag: write it alone, without `= value`",
        );
        return Ok(());
    }
    if fresh {
        *slot = true;
    }
    Ok(())
}

/// `"500ms"`, `"30s"`, `"2m"`, `"1h"` → milliseconds.
fn parse_duration_millis(text: &str) -> Result<u64, String> {
    let invalid = || {
        format!("invalid duration `{text}`: write a whole number and a unit, such as \"500ms\", \"30s\", \"2m\" or \"1h\"")
    };
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(invalid)?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().map_err(|_| invalid())?;
    let factor = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(invalid()),
    };
    match number.checked_mul(factor) {
        Some(0) => Err(format!(
            "invalid duration `{text}`: a timeout must be longer than zero"
        )),
        Some(millis) => Ok(millis),
        None => Err(invalid()),
    }
}
