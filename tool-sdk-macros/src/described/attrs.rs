//! What `#[derive(Described)]` reads of a type: serde's attributes and schemars' own, as
//! schemars' derive reads them, so that the description it gives is the schema schemars writes.
//!
//! An attribute that changes the schema in a way no `const` can follow (`schema_with`,
//! `extend`, `transform`, a flattened struct), a schemars key it does not know, and an
//! attribute it cannot read make the type's description [`opaque`](Container::opaque): its
//! check is left to registration. Never an error: the attributes are serde's and schemars',
//! whose derives judge them.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr};

/// A length bound's keyword, for the type to decide.
pub(crate) const MIN_LENGTH: &str = "length(min)";
pub(crate) const MAX_LENGTH: &str = "length(max)";

/// The attributes of the type.
#[derive(Default)]
pub(crate) struct Container {
    pub(crate) rename: Option<String>,
    pub(crate) rename_all: Option<String>,
    pub(crate) rename_all_fields: Option<String>,
    pub(crate) tag: Option<String>,
    pub(crate) content: Option<String>,
    pub(crate) untagged: bool,
    pub(crate) transparent: bool,
    pub(crate) deny_unknown_fields: bool,
    pub(crate) default: bool,
    pub(crate) inline: bool,
    /// `#[serde(from = "T")]` or `#[schemars(with = "T")]`: described as `T` is.
    pub(crate) with: Option<syn::Type>,
    /// Why the description cannot follow the schema, when it cannot.
    pub(crate) opaque: Option<&'static str>,
    pub(crate) doc: Doc,
}

/// The attributes of a field.
#[derive(Default)]
pub(crate) struct Field {
    pub(crate) rename: Option<String>,
    pub(crate) skip: bool,
    pub(crate) default: bool,
    pub(crate) flatten: bool,
    pub(crate) with: Option<syn::Type>,
    pub(crate) opaque: Option<&'static str>,
    pub(crate) doc: Doc,
    /// Keywords schemars' validation attributes add (`range`, `length`, `regex`), in order.
    pub(crate) validation: Vec<(&'static str, Bound)>,
}

/// The attributes of a variant.
#[derive(Default)]
pub(crate) struct Variant {
    pub(crate) rename: Option<String>,
    pub(crate) skip: bool,
    pub(crate) untagged: bool,
    pub(crate) opaque: Option<&'static str>,
    pub(crate) doc: Doc,
}

/// A bound's value as written: a number or a text.
pub(crate) enum Bound {
    Number(syn::Lit),
    Text(String),
}

/// A title and a description, from the doc comment or said outright.
#[derive(Default)]
pub(crate) struct Doc {
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
}

pub(crate) fn container(attrs: &[Attribute]) -> syn::Result<Container> {
    let mut out = Container {
        doc: doc(attrs),
        ..Container::default()
    };
    for attr in attrs {
        if validation_attribute(attr) {
            out.opaque = Some(VALIDATION);
            continue;
        }
        let is_serde = attr.path().is_ident("serde");
        if !is_serde && !attr.path().is_ident("schemars") {
            continue;
        }
        let read = attr.parse_nested_meta(|meta| {
            let key = key(&meta);
            match key.as_str() {
                "rename" => out.rename = deserialize_name(&meta)?,
                "rename_all" => out.rename_all = deserialize_name(&meta)?,
                "rename_all_fields" => out.rename_all_fields = deserialize_name(&meta)?,
                "tag" => out.tag = Some(string(&meta)?),
                "content" => out.content = Some(string(&meta)?),
                "untagged" => out.untagged = true,
                "transparent" => out.transparent = true,
                "deny_unknown_fields" => out.deny_unknown_fields = true,
                "default" => {
                    out.default = true;
                    skip_value(&meta)?;
                }
                "inline" if !is_serde => out.inline = true,
                "from" | "try_from" if is_serde => out.with = Some(type_in_string(&meta)?),
                "with" if !is_serde => out.with = Some(type_in_string(&meta)?),
                "title" if !is_serde => out.doc.title = Some(string(&meta)?),
                "description" if !is_serde => out.doc.description = Some(string(&meta)?),
                "crate" if !is_serde => skip_value(&meta)?,
                _ => other(&meta, is_serde, &mut out.opaque)?,
            }
            Ok(())
        });
        if read.is_err() {
            out.opaque = Some(UNREAD);
        }
    }
    Ok(out)
}

pub(crate) fn field(attrs: &[Attribute]) -> syn::Result<Field> {
    let mut out = Field {
        doc: doc(attrs),
        ..Field::default()
    };
    for attr in attrs {
        if validation_attribute(attr) {
            out.opaque = Some(VALIDATION);
            continue;
        }
        let is_serde = attr.path().is_ident("serde");
        if !is_serde && !attr.path().is_ident("schemars") {
            continue;
        }
        let read = attr.parse_nested_meta(|meta| {
            let key = key(&meta);
            match key.as_str() {
                "rename" => out.rename = deserialize_name(&meta)?,
                // What is never deserialized is not in the schema schemars writes.
                "skip" | "skip_deserializing" => out.skip = true,
                "default" => {
                    out.default = true;
                    skip_value(&meta)?;
                }
                "flatten" => out.flatten = true,
                "with" if !is_serde => out.with = Some(type_in_string(&meta)?),
                "title" if !is_serde => out.doc.title = Some(string(&meta)?),
                "description" if !is_serde => out.doc.description = Some(string(&meta)?),
                "range" if !is_serde => meta.parse_nested_meta(|bound| {
                    let keyword = match key_of(&bound).as_str() {
                        "min" => "minimum",
                        "max" => "maximum",
                        _ => return skip_value(&bound),
                    };
                    out.validation.push((keyword, number(&bound)?));
                    Ok(())
                })?,
                // Which keyword a length is (`minLength`, `minItems`, `minProperties`) depends on
                // the field's type, which its description tells when it is compiled.
                "length" if !is_serde => meta.parse_nested_meta(|bound| {
                    let keyword = match key_of(&bound).as_str() {
                        "min" => MIN_LENGTH,
                        "max" => MAX_LENGTH,
                        "equal" => {
                            let value = number(&bound)?;
                            out.validation.push((MIN_LENGTH, clone_bound(&value)));
                            out.validation.push((MAX_LENGTH, value));
                            return Ok(());
                        }
                        _ => return skip_value(&bound),
                    };
                    out.validation.push((keyword, number(&bound)?));
                    Ok(())
                })?,
                "regex" | "pattern" if !is_serde => {
                    if meta.input.peek(syn::Token![=]) {
                        let pattern = string(&meta)?;
                        out.validation.push(("pattern", Bound::Text(pattern)));
                    } else {
                        meta.parse_nested_meta(|inner| {
                            if inner.path.is_ident("pattern") {
                                let pattern = string(&inner)?;
                                out.validation.push(("pattern", Bound::Text(pattern)));
                                Ok(())
                            } else {
                                out.opaque = Some("a regular expression given by a path");
                                skip_value(&inner)
                            }
                        })?;
                    }
                }
                _ => other(&meta, is_serde, &mut out.opaque)?,
            }
            Ok(())
        });
        if read.is_err() {
            out.opaque = Some(UNREAD);
        }
    }
    Ok(out)
}

pub(crate) fn variant(attrs: &[Attribute]) -> syn::Result<Variant> {
    let mut out = Variant {
        doc: doc(attrs),
        ..Variant::default()
    };
    for attr in attrs {
        if validation_attribute(attr) {
            out.opaque = Some(VALIDATION);
            continue;
        }
        let is_serde = attr.path().is_ident("serde");
        if !is_serde && !attr.path().is_ident("schemars") {
            continue;
        }
        let read = attr.parse_nested_meta(|meta| {
            let key = key(&meta);
            match key.as_str() {
                "rename" => out.rename = deserialize_name(&meta)?,
                "skip" | "skip_deserializing" => out.skip = true,
                "untagged" => out.untagged = true,
                "title" if !is_serde => out.doc.title = Some(string(&meta)?),
                "description" if !is_serde => out.doc.description = Some(string(&meta)?),
                _ => other(&meta, is_serde, &mut out.opaque)?,
            }
            Ok(())
        });
        if read.is_err() {
            out.opaque = Some(UNREAD);
        }
    }
    Ok(out)
}

/// Why a description is opaque when schemars reads a validation crate's attribute.
const VALIDATION: &str = "a `validate` or `garde` attribute, which schemars reads";

/// Whether `attr` is one of the validation crates' attributes schemars turns into keywords.
fn validation_attribute(attr: &Attribute) -> bool {
    attr.path().is_ident("validate") || attr.path().is_ident("garde")
}

/// Why a description is opaque when an attribute could not be read.
const UNREAD: &str = "an attribute the description cannot read";

/// A key the description does not read: a serde key that does not change the schema of what
/// is deserialized, skipped; a schemars key (which changes the schema, or may), making the
/// description opaque.
fn other(
    meta: &ParseNestedMeta<'_>,
    is_serde: bool,
    opaque: &mut Option<&'static str>,
) -> syn::Result<()> {
    if !is_serde {
        *opaque = Some("a schemars attribute the description cannot follow");
    }
    skip_value(meta)
}

/// Skips a key's value, whatever its tokens (`= expression`, or a group such as
/// `extend("format" = "date")`, which is no nested meta).
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

fn key(meta: &ParseNestedMeta<'_>) -> String {
    key_of(meta)
}

fn key_of(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

fn string(meta: &ParseNestedMeta<'_>) -> syn::Result<String> {
    Ok(meta.value()?.parse::<LitStr>()?.value())
}

fn type_in_string(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::Type> {
    meta.value()?.parse::<LitStr>()?.parse()
}

fn number(meta: &ParseNestedMeta<'_>) -> syn::Result<Bound> {
    let expr: syn::Expr = meta.value()?.parse()?;
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => Ok(Bound::Number(lit)),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => match *expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            }) => Ok(Bound::Number(syn::Lit::Int(syn::LitInt::new(
                &format!("-{}", int.base10_digits()),
                int.span(),
            )))),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(float),
                ..
            }) => Ok(Bound::Number(syn::Lit::Float(syn::LitFloat::new(
                &format!("-{}", float.base10_digits()),
                float.span(),
            )))),
            other => Ok(Bound::Text(quote::quote!(-#other).to_string())),
        },
        other => Ok(Bound::Text(quote::quote!(#other).to_string())),
    }
}

fn clone_bound(bound: &Bound) -> Bound {
    match bound {
        Bound::Number(lit) => Bound::Number(lit.clone()),
        Bound::Text(text) => Bound::Text(text.clone()),
    }
}

/// `rename = "x"`, or the `deserialize` name of `rename(serialize = "..", deserialize = "..")`;
/// `None` when only the serialized name is given.
fn deserialize_name(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if meta.input.peek(syn::Token![=]) {
        return string(meta).map(Some);
    }
    let mut name = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("deserialize") {
            name = Some(string(&inner)?);
            Ok(())
        } else {
            skip_value(&inner)
        }
    })?;
    Ok(name)
}

/// The doc comment as schemars reads it: lines joined by `\n`, each without its first space,
/// trimmed; a first line starting with `#` is the title.
fn doc(attrs: &[Attribute]) -> Doc {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(text),
                        ..
                    }),
                ..
            }) => {
                let text = text.value();
                Some(text.strip_prefix(' ').map(str::to_owned).unwrap_or(text))
            }
            _ => None,
        })
        .collect();
    let joined = lines.join("\n");
    let text = joined.trim_matches(|c: char| c.is_ascii_whitespace());
    let nonempty = |text: &str| (!text.is_empty()).then(|| text.to_owned());
    match text.strip_prefix('#') {
        Some(_) => {
            let end = text.find('\n').unwrap_or(text.len());
            let (title, rest) = text.split_at(end);
            let title = title
                .trim_start_matches('#')
                .trim_matches(|c: char| c.is_ascii_whitespace());
            Doc {
                title: nonempty(title),
                description: nonempty(rest.trim_matches(|c: char| c.is_ascii_whitespace())),
            }
        }
        None => Doc {
            title: None,
            description: nonempty(text),
        },
    }
}

/// `name` as serde renames it by `rule` (`rename_all`); a field's name is in `snake_case`, a
/// variant's in `PascalCase`.
pub(crate) fn renamed(name: &str, rule: Option<&str>, is_variant: bool) -> String {
    let Some(rule) = rule else {
        return name.to_owned();
    };
    if is_variant {
        let snake = {
            let mut snake = String::new();
            for (i, ch) in name.char_indices() {
                if i > 0 && ch.is_uppercase() {
                    snake.push('_');
                }
                snake.push(ch.to_ascii_lowercase());
            }
            snake
        };
        match rule {
            "lowercase" => name.to_ascii_lowercase(),
            "UPPERCASE" => name.to_ascii_uppercase(),
            "PascalCase" => name.to_owned(),
            "camelCase" => {
                let mut chars = name.chars();
                chars
                    .next()
                    .map(|first| first.to_ascii_lowercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            }
            "snake_case" => snake,
            "SCREAMING_SNAKE_CASE" => snake.to_ascii_uppercase(),
            "kebab-case" => snake.replace('_', "-"),
            "SCREAMING-KEBAB-CASE" => snake.replace('_', "-").to_ascii_uppercase(),
            _ => name.to_owned(),
        }
    } else {
        let pascal: String = name
            .split('_')
            .map(|part| {
                let mut chars = part.chars();
                chars
                    .next()
                    .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            })
            .collect();
        match rule {
            "lowercase" | "snake_case" => name.to_owned(),
            "UPPERCASE" | "SCREAMING_SNAKE_CASE" => name.to_ascii_uppercase(),
            "PascalCase" => pascal,
            "camelCase" => {
                let mut chars = pascal.chars();
                chars
                    .next()
                    .map(|first| first.to_ascii_lowercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            }
            "kebab-case" => name.replace('_', "-"),
            "SCREAMING-KEBAB-CASE" => name.replace('_', "-").to_ascii_uppercase(),
            _ => name.to_owned(),
        }
    }
}
