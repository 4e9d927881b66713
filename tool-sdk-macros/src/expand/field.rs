//! One argument's field in the arguments struct: the type it is decoded as, and the name of the
//! function that gives its declared default. The struct and its decoder both name them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::model::{Argument, Param};

/// The function that gives the value of `#[arg(default = expr)]` for parameter `name`, an
/// associated function of the arguments struct.
pub(crate) fn default_fn_ident(name: &syn::Ident) -> syn::Ident {
    format_ident!("__tool_default_{}", name)
}

/// The type a parameter is decoded as: the type itself, or `T::Owned` for `&T`.
pub(crate) fn field_type(param: &Param, argument: &Argument) -> TokenStream {
    match &argument.borrowed {
        Some(inner) => quote_spanned!(inner.span()=> <#inner as ::std::borrow::ToOwned>::Owned),
        None => param.ty.to_token_stream(),
    }
}
