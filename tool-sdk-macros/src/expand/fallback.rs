//! What is emitted when the input has errors: the errors, the item as the user wrote it, and a
//! stand-in for the tool type or tool set, so code using it gets no follow-on errors.

use proc_macro2::TokenStream;
use quote::quote;

/// A tool type whose `Tool` impl never runs (the crate does not compile with the errors beside
/// it); it only keeps `registry.register(AddTool)` from adding errors of its own.
pub(crate) fn stand_in_tool(private: &TokenStream, tool_ty: &TokenStream) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl #private::Tool for #tool_ty {
            fn definition(&self) -> &#private::ToolDefinition {
                ::core::unreachable!()
            }

            fn call<'__a>(
                &'__a self,
                _: &'__a str,
                _: #private::ToolContext<'__a>,
            ) -> #private::ToolFuture<'__a> {
                ::core::unreachable!()
            }
        }
    }
}

/// A `ToolSet` impl that never runs, for an impl block whose `#[tools]` expansion has errors; it
/// only keeps `registry.register_set(...)` from adding errors of its own.
pub(crate) fn stand_in_tool_set(private: &TokenStream, self_ty: &syn::Type) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl #private::ToolSet for #self_ty {
            fn tools(
                self: #private::Arc<Self>,
            ) -> ::std::vec::Vec<#private::Arc<dyn #private::Tool>> {
                ::core::unreachable!()
            }
        }
    }
}
