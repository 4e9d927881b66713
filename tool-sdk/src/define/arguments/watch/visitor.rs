//! The visitor around the one a type's `Deserialize` gives: it passes every value on, wraps
//! whatever it hands out (a deserializer, a map, a list, an enum's data) so that what is
//! inside is watched too, and marks the watch when an object comes through an unguarded door.

use std::fmt;

use serde::de::{Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

use super::access::{WatchedEnum, WatchedMap, WatchedSeq};
use super::{Watch, Watched};

/// The call through which a visitor was given to the decoder.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Door {
    /// `deserialize_struct`: the visitor is one serde derives for a struct, which refuses a
    /// field named twice.
    Struct,
    /// `deserialize_map` or `deserialize_any`: an object met here may keep a repeated key.
    Unguarded,
    /// Any other call: an object met here is unexpected, and treated as unguarded.
    Other,
}

pub(super) struct WatchedVisitor<'w, V> {
    inner: V,
    watch: &'w Watch,
    door: Door,
}

impl<'w, V> WatchedVisitor<'w, V> {
    #[inline]
    pub(super) fn new(inner: V, watch: &'w Watch, door: Door) -> Self {
        Self { inner, watch, door }
    }
}

/// Visits that carry a value and nothing to decode further, passed on as they are.
macro_rules! pass_on {
    ($($method:ident($ty:ty))*) => {
        $(
            #[inline]
            fn $method<E: serde::de::Error>(self, value: $ty) -> Result<V::Value, E> {
                self.inner.$method(value)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for WatchedVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(formatter)
    }

    pass_on! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64)
        visit_i128(i128) visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64)
        visit_u128(u128) visit_f32(f32) visit_f64(f64) visit_char(char) visit_str(&str)
        visit_borrowed_str(&'de str) visit_string(String) visit_bytes(&[u8])
        visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    }

    #[inline]
    fn visit_none<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    #[inline]
    fn visit_unit<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.inner
            .visit_some(Watched::new(deserializer, self.watch))
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        self.inner
            .visit_newtype_struct(Watched::new(deserializer, self.watch))
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(WatchedSeq::new(seq, self.watch))
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        if self.door != Door::Struct {
            self.watch.set(true);
        }
        self.inner.visit_map(WatchedMap::new(map, self.watch))
    }

    #[inline]
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(WatchedEnum::new(data, self.watch))
    }
}
