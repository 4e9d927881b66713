//! The output schema of a generated tool, chosen by its return type at compile time.
//!
//! Generated code writes `(&&&&OutputOf::<T>::new()).__output_schema()` for the success type `T`
//! (of `Result<T, E>`, or the return type itself); method resolution takes the first impl
//! whose bounds `T` meets, most specific first:
//!
//! 1. `Json<U>` with `U: JsonSchema`: `U`'s schema;
//! 2. a type with its own [`IntoToolOutput`] (text, `()`, `Value`, parts, `Json<U>` without a
//!    schema): none;
//! 3. any other `Serialize` type that is `JsonSchema`: its schema;
//! 4. anything else: none.

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::define::{output_schema, IntoToolOutput, Json};

/// Carries a return type for method resolution; holds nothing.
pub struct OutputOf<T>(PhantomData<fn() -> T>);

impl<T> OutputOf<T> {
    /// The carrier of `T`.
    #[inline]
    pub fn new() -> Self {
        OutputOf(PhantomData)
    }
}

impl<T> Default for OutputOf<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> std::fmt::Debug for OutputOf<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OutputOf")
    }
}

/// 1. `Json<U>` whose `U` has a schema.
pub trait JsonOutputSchema {
    /// `U`'s schema.
    fn __output_schema(&self) -> Option<Value>;
}
impl<U: JsonSchema> JsonOutputSchema for &&&OutputOf<Json<U>> {
    fn __output_schema(&self) -> Option<Value> {
        constraining(output_schema::<U>())
    }
}

/// 2. Types with their own conversion: text and parts have no schema.
pub trait OwnOutputSchema {
    /// None.
    fn __output_schema(&self) -> Option<Value>;
}
impl<T: IntoToolOutput> OwnOutputSchema for &&OutputOf<T> {
    fn __output_schema(&self) -> Option<Value> {
        None
    }
}

/// 3. Other `Serialize` types, written as JSON, with a schema.
pub trait SerializedOutputSchema {
    /// `T`'s schema.
    fn __output_schema(&self) -> Option<Value>;
}
impl<T: Serialize + JsonSchema> SerializedOutputSchema for &OutputOf<T> {
    fn __output_schema(&self) -> Option<Value> {
        constraining(output_schema::<T>())
    }
}

/// `schema`, unless it allows any value (`Json<serde_json::Value>`'s `true` or `{}`): such a
/// tool says nothing about its output, and MCP would wrap every object it returns.
fn constraining(schema: Value) -> Option<Value> {
    match &schema {
        Value::Bool(true) => None,
        Value::Object(object) if object.is_empty() => None,
        _ => Some(schema),
    }
}

/// 4. Anything else.
pub trait NoOutputSchema {
    /// None.
    fn __output_schema(&self) -> Option<Value>;
}
impl<T> NoOutputSchema for OutputOf<T> {
    fn __output_schema(&self) -> Option<Value> {
        None
    }
}

#[cfg(test)]
// The borrows are the point: each `&` more reaches one level of the impls further.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;
    use crate::define::Part;

    #[derive(Serialize, JsonSchema)]
    struct Weather {
        celsius: f64,
    }

    #[derive(Serialize)]
    struct Unschemed {
        celsius: f64,
    }

    #[test]
    fn the_most_specific_impl_decides() {
        assert_eq!(
            (&&&&OutputOf::<Json<Weather>>::new()).__output_schema(),
            Some(output_schema::<Weather>())
        );
        assert_eq!(
            (&&&&OutputOf::<Weather>::new()).__output_schema(),
            Some(output_schema::<Weather>())
        );
        assert_eq!(
            (&&&&OutputOf::<Json<Unschemed>>::new()).__output_schema(),
            None
        );
        assert_eq!((&&&&OutputOf::<Unschemed>::new()).__output_schema(), None);
        assert_eq!((&&&&OutputOf::<String>::new()).__output_schema(), None);
        assert_eq!((&&&&OutputOf::<()>::new()).__output_schema(), None);
        assert_eq!((&&&&OutputOf::<Value>::new()).__output_schema(), None);
        assert_eq!((&&&&OutputOf::<Json<Value>>::new()).__output_schema(), None);
        assert_eq!((&&&&OutputOf::<Vec<Part>>::new()).__output_schema(), None);
        assert_eq!(
            (&&&&OutputOf::<Vec<u32>>::new()).__output_schema(),
            Some(output_schema::<Vec<u32>>())
        );
    }
}
