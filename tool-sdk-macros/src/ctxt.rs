//! Collects every error of one expansion, each on its span, so a user sees them all at once.

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// The errors found so far.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records an error on the tokens of `at`.
    pub(crate) fn error_spanned_by(&mut self, at: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(at, message));
    }

    /// Records an error at a span.
    pub(crate) fn error_at(&mut self, span: Span, message: impl Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Records a parse error as it is.
    pub(crate) fn syn_error(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// All errors combined into one, or `Ok` when there were none.
    pub(crate) fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}
