//! `#[derive(Described)]`: a type's JSON Schema as `const` data, so that a tool taking it can be
//! checked against a dialect when it is compiled. It writes what schemars' derive writes for
//! the same type and attributes (`attrs`), as a `Shape` (`schema`).

mod attrs;
mod schema;

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::DeriveInput;

use crate::resolve::private_module;

/// The derive's expansion, or its errors.
pub(crate) fn derive(input: TokenStream) -> TokenStream {
    match expand(input) {
        Ok(tokens) => tokens,
        Err(error) => error.to_compile_error(),
    }
}

fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let mut input: DeriveInput = syn::parse2(input)?;
    let private = private_module(crate_path(&input.attrs)?.as_ref());
    let container = attrs::container(&input.attrs)?;
    let ident = input.ident.clone();
    let name = container
        .rename
        .clone()
        .unwrap_or_else(|| ident.to_string());
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let self_ty: syn::Type = syn::parse_quote!(#ident #ty_generics);
    // A field of the type's own type refers back to its definition by name: through a marker
    // whose description is that reference, since a `const` cannot contain itself.
    let recursion: syn::Type = syn::parse_quote!(#private::Recursion<#self_ty>);
    let mut replace = ReplaceSelf {
        ident: &ident,
        with: &recursion,
    };
    if let syn::Data::Struct(data) = &mut input.data {
        for field in data.fields.iter_mut() {
            replace.visit_type_mut(&mut field.ty);
        }
    }
    if let syn::Data::Enum(data) = &mut input.data {
        for variant in data.variants.iter_mut() {
            for field in variant.fields.iter_mut() {
                replace.visit_type_mut(&mut field.ty);
            }
        }
    }
    let type_parameters: Vec<String> = input
        .generics
        .type_params()
        .map(|parameter| parameter.ident.to_string())
        .collect();
    let used = std::cell::RefCell::new(Vec::new());
    let builder = schema::Builder {
        private: &private,
        container: &container,
        type_parameters: &type_parameters,
        used: &used,
    };
    let (schema, inline) = builder.of(&input.data)?;
    // Where descriptions stop unfolding, a named type is a reference to itself by name; one
    // used inline has no name to refer by, and leaves its check there to registration.
    let (shape, deepest) = if inline {
        (schema, quote!(#private::Shape::Unchecked))
    } else {
        let shape = quote! {
            #private::Shape::Schema(&[(
                #private::Keyword::Ref,
                #private::Shape::Ref(&#private::Definition { name: #name, schema: #schema }),
            )])
        };
        let deepest = quote! {
            #private::Shape::Schema(&[(#private::Keyword::Ref, #private::Shape::Deep(#name))])
        };
        (shape, deepest)
    };
    let mut where_clause = where_clause.cloned();
    for param in input.generics.type_params() {
        let param = &param.ident;
        where_clause
            .get_or_insert_with(|| syn::parse_quote!(where))
            .predicates
            .push(syn::parse_quote!(#param: #private::Described));
    }
    let described = deferred(&private, &shape, &deepest, &used.into_inner(), |consts| {
        quote! {
            #[automatically_derived]
            impl #impl_generics #private::Described for #self_ty #where_clause {
                #consts
            }
        }
    });
    Ok(quote! {
        #described

        #[automatically_derived]
        impl #impl_generics #private::DefinitionName for #self_ty #where_clause {
            const NAME: &'static str = #name;
        }
    })
}

/// How many descriptions below the top `Described` has (`DEPTH_1` to `DEPTH_16`).
const DEPTHS: usize = 16;

/// The `Described` impl `impl_of` wraps around the type's descriptions: `shape` (which names
/// the types it uses by type parameters) built once, and called with those types at each
/// depth, the fields one named type deeper than the type; at the last depth, `deepest` (a
/// reference back to the type by name).
///
/// A description that named the types of its fields directly would be evaluated with the
/// crate, used or not (rustc evaluates the constants a constant's body names), and two types
/// that hold each other would each need the other's first, a cycle (E0391) even where no
/// dialect is chosen: behind a generic function, a description is evaluated only when a check
/// uses it. Where a check uses it, each depth needs only the next one's, down to `deepest`:
/// no cycle, and a type reached again within the depths is a reference to it.
fn deferred(
    private: &TokenStream,
    shape: &TokenStream,
    deepest: &TokenStream,
    used: &[(String, syn::Type)],
    impl_of: impl FnOnce(TokenStream) -> TokenStream,
) -> TokenStream {
    if used.is_empty() {
        // Nothing is described at another depth: the deeper descriptions are this one.
        return impl_of(quote!(const SHAPE: #private::Shape = #shape;));
    }
    let parameters: Vec<syn::Ident> = (0..used.len()).map(schema::parameter).collect();
    let at = |depth: usize| {
        let depth = quote::format_ident!("Depth{depth}");
        let types = used
            .iter()
            .map(|(_, ty)| quote!(#private::AtDepth<#ty, #private::#depth>));
        quote!(__describe::<#(#types),*>())
    };
    // At each depth, the fields one deeper; at the last, the reference back.
    let top = at(1);
    let deeper = (1..DEPTHS).map(|depth| {
        let name = quote::format_ident!("DEPTH_{depth}");
        let shape = at(depth + 1);
        quote!(const #name: #private::Shape = #shape;)
    });
    let last = quote::format_ident!("DEPTH_{DEPTHS}");
    let described = impl_of(quote! {
        const SHAPE: #private::Shape = #top;
        #(#deeper)*
        const #last: #private::Shape = #deepest;
    });
    quote! {
        const _: () = {
            struct __Describe<#(#parameters: ?::core::marker::Sized),*>(
                #(::core::marker::PhantomData<#parameters>),*
            );
            impl<#(#parameters: #private::Described + ?::core::marker::Sized),*>
                __Describe<#(#parameters),*>
            {
                const SHAPE: #private::Shape = #shape;
            }
            const fn __describe<#(#parameters: #private::Described + ?::core::marker::Sized),*>()
                -> #private::Shape
            {
                __Describe::<#(#parameters),*>::SHAPE
            }
            #described
        };
    }
}

/// `#[describe(crate = path)]`: where `tool_sdk` is, as the tool macros' `crate = path`.
fn crate_path(attrs: &[syn::Attribute]) -> syn::Result<Option<syn::Path>> {
    let mut path = None;
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("describe")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                path = Some(meta.value()?.parse()?);
                Ok(())
            } else {
                Err(meta.error("unknown key in `#[describe(...)]`; expected `crate = path`"))
            }
        })?;
    }
    Ok(path)
}

/// Replaces `Self` and the type's own name in a field's type by the recursion marker.
struct ReplaceSelf<'a> {
    ident: &'a syn::Ident,
    with: &'a syn::Type,
}

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(path) = ty {
            let is_self = path.qself.is_none()
                && path.path.segments.len() == 1
                && (path.path.segments[0].ident == "Self"
                    || path.path.segments[0].ident == *self.ident);
            if is_self {
                *ty = self.with.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}
