//! A function item read as far as `#[tool]` needs it: attributes, visibility and signature. The
//! body stays the brace group it came in, neither parsed nor rebuilt token by token, so the cost
//! of the attribute does not grow with the size of the function.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{ToTokens, TokenStreamExt};
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Signature, Visibility};

/// `fn` item with an opaque body.
pub(crate) struct FnShell {
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) vis: Visibility,
    pub(crate) sig: Signature,
    body: TokenTree,
}

impl Parse for FnShell {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let sig = input.parse()?;
        let body: TokenTree = input.parse()?;
        match &body {
            TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {}
            other => return Err(syn::Error::new(other.span(), "expected a function body")),
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the function body"));
        }
        Ok(Self {
            attrs,
            vis,
            sig,
            body,
        })
    }
}

impl ToTokens for FnShell {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.append_all(&self.attrs);
        self.vis.to_tokens(tokens);
        self.sig.to_tokens(tokens);
        tokens.append(self.body.clone());
    }
}
