//! Tools handed over as they are written: a tuple of tools, or a registry built already.

use crate::define::Tool;
use crate::register::{RegistryError, ToolRegistry};

/// What becomes a [`ToolRegistry`]: a registry itself, or a tuple of up to twelve tools,
/// registered in order (so the first of two tools with one name is kept, and the second is a
/// [`RegistryError::DuplicateName`]).
///
/// # Examples
///
/// ```
/// use tool_sdk::register::IntoRegistry;
/// use tool_sdk::tool;
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// /// Multiplies two numbers.
/// #[tool]
/// fn multiply(a: i64, b: i64) -> i64 { a * b }
///
/// let registry = (AddTool, MultiplyTool).into_registry()?;
/// assert_eq!(registry.len(), 2);
/// # Ok::<(), tool_sdk::register::RegistryError>(())
/// ```
pub trait IntoRegistry {
    /// The registry holding these tools.
    fn into_registry(self) -> Result<ToolRegistry, RegistryError>;
}

impl IntoRegistry for ToolRegistry {
    fn into_registry(self) -> Result<ToolRegistry, RegistryError> {
        Ok(self)
    }
}

macro_rules! tuples_into_registry {
    ($($tool:ident),+) => {
        impl<$($tool: Tool + 'static),+> IntoRegistry for ($($tool,)+) {
            #[allow(non_snake_case)]
            fn into_registry(self) -> Result<ToolRegistry, RegistryError> {
                let ($($tool,)+) = self;
                let mut registry = ToolRegistry::new();
                $(registry.register($tool)?;)+
                Ok(registry)
            }
        }
    };
}

tuples_into_registry!(A);
tuples_into_registry!(A, B);
tuples_into_registry!(A, B, C);
tuples_into_registry!(A, B, C, D);
tuples_into_registry!(A, B, C, D, E);
tuples_into_registry!(A, B, C, D, E, F);
tuples_into_registry!(A, B, C, D, E, F, G);
tuples_into_registry!(A, B, C, D, E, F, G, H);
tuples_into_registry!(A, B, C, D, E, F, G, H, I);
tuples_into_registry!(A, B, C, D, E, F, G, H, I, J);
tuples_into_registry!(A, B, C, D, E, F, G, H, I, J, K);
tuples_into_registry!(A, B, C, D, E, F, G, H, I, J, K, L);
