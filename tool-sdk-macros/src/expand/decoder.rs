//! The `Deserialize` impl of a tool's arguments struct, written here rather than derived.
//!
//! Arguments are always a JSON object whose keys are known, so the impl needs only a map
//! visitor: no sequence form, no per-tool enum of field names. Recognizing a key, reading a
//! field's value once and filling a left-out field are helpers of the runtime crate
//! (`__private::FieldSeed`, `next_argument`, `take_argument`), so each field costs one call in
//! the expansion. That keeps each tool's decoder to a fraction of what serde's derive writes,
//! which is most of what a tool adds to a build, while the behaviour and messages stay serde's:
//! unknown, duplicate and missing fields, `None` for a left-out `Option`, the declared defaults.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use crate::expand::field::{default_fn_ident, field_type};
use crate::model::{DefaultValue, ToolDef};

/// `impl Deserialize for __ToolArgs`, for the struct [`args_struct`](super::args::args_struct)
/// declares, in the same scope.
pub(crate) fn decoder(def: &ToolDef, private: &TokenStream) -> TokenStream {
    let args = &def.args_ident;
    let serde = quote!(#private::serde);
    let mut slots = Vec::new();
    let mut arms = Vec::new();
    let mut fields = Vec::new();
    let mut wires = Vec::new();
    for (index, (param, argument)) in def.arguments().enumerate() {
        let name = &param.ident;
        let ty = field_type(param, argument);
        let wire = &argument.wire_name;
        let slot = format_ident!("__field{}", index);
        // Its type comes from the call that fills it.
        slots.push(quote! {
            let mut #slot = ::core::option::Option::None;
        });
        // Spanned at the type, whose bound says what a tool argument needs: a type that is not
        // one is reported where it was written, with that message.
        arms.push(quote_spanned! {ty.span()=>
            #index => #private::next_argument::<#ty, _>(&mut __map, &mut #slot, #wire)?,
        });
        let value = match &argument.default {
            None => quote_spanned! {ty.span()=>
                #private::take_argument::<#ty, _>(#slot, #wire)?
            },
            Some(DefaultValue::Trait) => quote_spanned! {ty.span()=>
                ::core::option::Option::unwrap_or_default(#slot)
            },
            Some(DefaultValue::Expr(_)) => {
                let function = default_fn_ident(&param.ident.unraw());
                quote!(::core::option::Option::unwrap_or_else(#slot, #args::#function))
            }
        };
        fields.push(quote!(#name: #value));
        wires.push(wire);
    }
    let indexes = 0..wires.len();
    let expecting = format!("the arguments of tool `{}`", def.name);
    quote! {
        #[automatically_derived]
        impl<'de> #serde::Deserialize<'de> for #args {
            fn deserialize<__ToolSdkDeserializer: #serde::Deserializer<'de>>(
                __deserializer: __ToolSdkDeserializer,
            ) -> ::core::result::Result<Self, __ToolSdkDeserializer::Error> {
                const __FIELDS: #private::FieldSeed = #private::FieldSeed {
                    names: &[#(#wires),*],
                    index: |__key| match __key {
                        #(#wires => ::core::option::Option::Some(#indexes),)*
                        _ => ::core::option::Option::None,
                    },
                };

                struct __Visitor;

                impl<'de> #serde::de::Visitor<'de> for __Visitor {
                    type Value = #args;

                    fn expecting(
                        &self,
                        __formatter: &mut ::core::fmt::Formatter<'_>,
                    ) -> ::core::fmt::Result {
                        __formatter.write_str(#expecting)
                    }

                    // Inlined into `deserialize_struct`, as serde's derive gets it: a call through
                    // the registry costs the same instructions as with serde's decoder.
                    #[inline]
                    fn visit_map<__ToolSdkMap: #serde::de::MapAccess<'de>>(
                        self,
                        mut __map: __ToolSdkMap,
                    ) -> ::core::result::Result<#args, __ToolSdkMap::Error> {
                        // Arguments are always an object (the runtime refuses anything else before
                        // decoding), so a map visitor is the whole decoder.
                        #(#slots)*
                        while let ::core::option::Option::Some(__key) =
                            #serde::de::MapAccess::next_key_seed(
                                &mut __map,
                                __FIELDS,
                            )?
                        {
                            match __key {
                                #(#arms)*
                                _ => #private::skip_value(&mut __map)?,
                            }
                        }
                        ::core::result::Result::Ok(#args { #(#fields),* })
                    }
                }

                #serde::Deserializer::deserialize_struct(
                    __deserializer,
                    "arguments",
                    __FIELDS.names,
                    __Visitor,
                )
            }
        }
    }
}
