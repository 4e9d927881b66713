//! What is emitted when the input has errors: the errors, the item as the user wrote it, and a
//! stand-in for the tool type or tool set, so code using it gets no follow-on errors.

use proc_macro2::TokenStream;
use quote::quote;

/// A tool type whose `Tool` impl never runs (the crate does not compile with the errors beside
/// it); it only keeps `registry.register(AddTool)` from adding errors of its own.
pub(crate) fn stand_in_tool(root: &TokenStream, tool_ty: &TokenStream) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl #root::Tool for #tool_ty {
            fn definition(&self) -> &#root::ToolDefinition {
                ::core::unreachable!()
            }

            fn call<'__a>(
                &'__a self,
                _: &'__a str,
                _: #root::ToolContext<'__a>,
            ) -> #root::ToolFuture<'__a> {
                ::core::unreachable!()
            }
        }
    }
}

/// A `ToolSet` impl that never runs, for an impl block whose `#[tools]` expansion has errors; it
/// only keeps `registry.register_set(...)` from adding errors of its own.
pub(crate) fn stand_in_tool_set(root: &TokenStream, self_ty: &syn::Type) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl #root::ToolSet for #self_ty {
            fn tools(
                self: #root::__private::Arc<Self>,
            ) -> ::std::vec::Vec<#root::__private::Arc<dyn #root::Tool>> {
                ::core::unreachable!()
            }
        }
    }
}
