//! Doc comments as descriptions.

use syn::{Attribute, Expr, Lit, Meta};

use crate::symbol::DOC;

/// The text of the `///` lines among `attrs`, one leading space removed from each line, joined
/// with newlines (a blank line stays one) and trimmed; `None` when there is none or it is
/// blank.
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident(DOC))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(expr) => match &expr.lit {
                    Lit::Str(s) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        // A blank `///` line is an empty chunk, which `lines()` would drop with the
        // paragraph break it makes.
        .flat_map(|chunk| {
            if chunk.is_empty() {
                vec![String::new()]
            } else {
                chunk.lines().map(str::to_owned).collect::<Vec<_>>()
            }
        })
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
