//! What every generated arguments decoder shares, written once rather than in each tool's
//! expansion: recognizing a field name, reading a field's value once, and the value of a field
//! the arguments left out.
//!
//! `#[tool]` writes each tool's `Deserialize` impl itself, smaller than serde's derive would
//! (arguments are always a JSON object, so there is no sequence form and no per-tool field
//! enum), while keeping serde's behaviour and messages: `unknown field`, `duplicate field`,
//! `missing field`, and `None` for a left-out `Option`.

use std::fmt;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

/// Reads an object key as the index of one of the tool's field names (as the model spells
/// them); any other key is serde's `unknown field` error, listing the expected names.
///
/// `index` is the tool's own `match` over its names: compiled to length and byte compares, it
/// finds a key faster than a scan of `names` would.
#[derive(Debug, Clone, Copy)]
pub struct FieldSeed {
    /// The field names, in declaration order.
    pub names: &'static [&'static str],
    /// The position of a key in `names`.
    pub index: fn(&str) -> Option<usize>,
}

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = usize;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed {
    type Value = usize;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a field name")
    }

    #[inline]
    fn visit_str<E: de::Error>(self, key: &str) -> Result<usize, E> {
        (self.index)(key).ok_or_else(|| E::unknown_field(key, self.names))
    }

    fn visit_bytes<E: de::Error>(self, key: &[u8]) -> Result<usize, E> {
        match std::str::from_utf8(key) {
            Ok(key) => self.visit_str(key),
            Err(_) => Err(E::unknown_field(&String::from_utf8_lossy(key), self.names)),
        }
    }
}

/// Reads the value of the member whose key was just read into `slot`, as argument type `T`:
/// serde's `duplicate field` error when the arguments named `field` before. Generated code calls
/// it at the argument's type, so a type that is not a [`ToolArgument`] is reported there, with
/// what an argument needs.
///
/// Always inlined into the tool's map visitor in an optimized build, as serde's derive writes
/// the same steps into its own: a call of its own per field would cost a frame, the slot
/// written through memory and the result tested twice, on every field of every call. A debug
/// build, which inlines nothing, compiles it once per argument type as before.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn next_argument<'de, T: ToolArgument, M: MapAccess<'de>>(
    map: &mut M,
    slot: &mut Option<T>,
    field: &'static str,
) -> Result<(), M::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(field));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Reads past the value of a member no field takes. [`FieldSeed`] yields only the indexes of
/// fields, so a decoder never needs it; it keeps the map readable should one do.
#[inline]
pub fn skip_value<'de, M: MapAccess<'de>>(map: &mut M) -> Result<(), M::Error> {
    map.next_value::<de::IgnoredAny>().map(|_| ())
}

/// The value of argument `field` once the map is read: the one it gave, or else that of a field
/// left out without a default: `None` for an `Option`, serde's `missing field` error otherwise.
#[inline]
pub fn take_argument<'de, T: Deserialize<'de>, E: de::Error>(
    slot: Option<T>,
    field: &'static str,
) -> Result<T, E> {
    match slot {
        Some(value) => Ok(value),
        None => missing_field(field),
    }
}

/// The value of a field the arguments left out that has no default: `None` for an `Option`
/// (or any type that reads an absent value as `None`), serde's `missing field` error otherwise.
fn missing_field<'de, T: Deserialize<'de>, E: de::Error>(field: &'static str) -> Result<T, E> {
    T::deserialize(Missing {
        field,
        error: PhantomData,
    })
}

/// A deserializer with no value: an `Option` reads it as `None`, anything else fails.
struct Missing<E> {
    field: &'static str,
    error: PhantomData<E>,
}

impl<'de, E: de::Error> Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.field))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

/// What a tool argument's type needs. Generated decoders read each argument through
/// [`next_argument`], whose bound is this trait, spanned at the argument's type: a type that
/// cannot be an argument is reported there, with this message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument",
    label = "not `Deserialize + JsonSchema`",
    note = "tool arguments are decoded with serde and described with schemars: derive `serde::Deserialize` and `schemars::JsonSchema` for it",
    note = "a parameter the tool receives from its context (`CallId`, `State<T>`, ...) needs `#[context]`"
)]
pub trait ToolArgument: DeserializeOwned + schemars::JsonSchema {}

impl<T: DeserializeOwned + schemars::JsonSchema> ToolArgument for T {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::value::{Error, StrDeserializer};
    use serde::de::IntoDeserializer;

    const FIELDS: FieldSeed = FieldSeed {
        names: &["city", "days"],
        index: |key| match key {
            "city" => Some(0),
            "days" => Some(1),
            _ => None,
        },
    };

    #[test]
    fn a_known_key_is_its_index() {
        let key: StrDeserializer<'_, Error> = "days".into_deserializer();
        assert_eq!(FIELDS.deserialize(key).ok(), Some(1));
    }

    #[test]
    fn an_unknown_key_is_serdes_unknown_field_error() {
        let key: StrDeserializer<'_, Error> = "town".into_deserializer();
        let error = FIELDS.deserialize(key).unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown field `town`, expected `city` or `days`"
        );
    }

    #[test]
    fn a_missing_option_is_none_and_anything_else_is_missing() {
        assert_eq!(missing_field::<Option<u8>, Error>("days").ok(), Some(None));
        let error = missing_field::<u8, Error>("days").unwrap_err();
        assert_eq!(error.to_string(), "missing field `days`");
        let error = missing_field::<Vec<String>, Error>("tags").unwrap_err();
        assert_eq!(error.to_string(), "missing field `tags`");
    }
}
