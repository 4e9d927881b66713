//! A deserializer around the JSON decoder that notes whether any object of the arguments was
//! decoded by something that would keep one of two repeated keys.
//!
//! A struct whose `Deserialize` serde derives refuses a field named twice by itself. What does
//! not (a map, which keeps the last value, a `serde_json::Value`, serde's buffering for
//! untagged and internally tagged enums and for `#[serde(flatten)]`, a member a struct ignores)
//! reaches its object through another door than `deserialize_struct`: through
//! `deserialize_map`, `deserialize_any` or `deserialize_ignored_any`. The wrapper passes every
//! call on unchanged, and marks the [`Watch`] when an object comes in through one of those
//! doors, so that only such arguments are given the look for repeated keys afterwards. Arguments
//! of plain structs, lists and scalars, the common case, are decoded once and looked at no more.
//!
//! Every value handed on (a struct's member, a list's item, an option's content, an enum's
//! data) is wrapped in turn, so an object at any depth is seen.

use std::cell::Cell;

use std::fmt;

use serde::de::{
    DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// Whether an object of the arguments went through a door that lets a repeated key by.
pub(super) type Watch = Cell<bool>;

/// A deserializer that passes every call to `inner` and marks `watch` as [`WatchedVisitor`]
/// sees objects go by.
pub(super) struct Watched<'w, D> {
    inner: D,
    watch: &'w Watch,
}

impl<'w, D> Watched<'w, D> {
    #[inline]
    pub(super) fn new(inner: D, watch: &'w Watch) -> Self {
        Self { inner, watch }
    }

    #[inline]
    fn visitor<V>(&self, visitor: V, door: Door) -> WatchedVisitor<'w, V> {
        WatchedVisitor::new(visitor, self.watch, door)
    }
}

/// The calls the JSON decoder may answer with something inside (an option's content, a
/// list's items, bytes written as a JSON array): passed on with the visitor wrapped, so that
/// what is inside is watched.
macro_rules! pass_on {
    ($($method:ident)*) => {
        $(
            #[inline]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
                let visitor = self.visitor(visitor, Door::Other);
                self.inner.$method(visitor)
            }
        )*
    };
}

/// The calls the JSON decoder (the one thing this wraps, in [`decode`](super::decode)) answers
/// with a scalar alone, a number, a string, `true` or `null`, or an error: what they hand the
/// visitor holds nothing to watch, so the visitor is passed on as it is, and a scalar member
/// costs what it costs unwatched.
macro_rules! pass_scalars_on {
    ($($method:ident)*) => {
        $(
            #[inline]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
                self.inner.$method(visitor)
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Watched<'_, D> {
    type Error = D::Error;

    pass_scalars_on! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_unit deserialize_identifier
    }

    pass_on! {
        deserialize_bytes deserialize_byte_buf deserialize_option deserialize_seq
    }

    /// What decodes anything (`Value`, serde's buffer of content) meets objects here.
    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, Door::Unguarded);
        self.inner.deserialize_any(visitor)
    }

    /// A map keeps the last of two values under one key.
    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, Door::Unguarded);
        self.inner.deserialize_map(visitor)
    }

    /// A member nothing decodes: its keys are not checked by anything, and the decoder does not
    /// hold it to the depth limit either, so the look afterwards does.
    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.watch.set(true);
        self.inner.deserialize_ignored_any(visitor)
    }

    /// A struct serde derives refuses a field named twice: its own object is guarded; its
    /// members are watched.
    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, Door::Struct);
        self.inner.deserialize_struct(name, fields, visitor)
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, Door::Other);
        self.inner.deserialize_unit_struct(name, visitor)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, Door::Other);
        self.inner.deserialize_newtype_struct(name, visitor)
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, Door::Other);
        self.inner.deserialize_tuple(len, visitor)
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, Door::Other);
        self.inner.deserialize_tuple_struct(name, len, visitor)
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, Door::Other);
        self.inner.deserialize_enum(name, variants, visitor)
    }

    #[inline]
    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

// The visitor around the one a type's `Deserialize` gives: it passes every value on, wraps
// whatever it hands out (a deserializer, a map, a list, an enum's data) so that what is
// inside is watched too, and marks the watch when an object comes through an unguarded door.

/// The call through which a visitor was given to the decoder.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Door {
    /// `deserialize_struct`: the visitor is one serde derives for a struct, which refuses a
    /// field named twice.
    Struct,
    /// `deserialize_map` or `deserialize_any`: an object met here may keep a repeated key.
    Unguarded,
    /// Any other call: an object met here is unexpected, and treated as unguarded.
    Other,
}

struct WatchedVisitor<'w, V> {
    inner: V,
    watch: &'w Watch,
    door: Door,
}

impl<'w, V> WatchedVisitor<'w, V> {
    #[inline]
    fn new(inner: V, watch: &'w Watch, door: Door) -> Self {
        Self { inner, watch, door }
    }
}

/// Visits that carry a value and nothing to decode further, passed on as they are.
macro_rules! pass_values_on {
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

    pass_values_on! {
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

// The accesses a watched visitor hands on (an object's members, a list's items, an enum's
// variant and its data), each wrapping what it yields so that a value inside is watched.
// Keys and variant names are passed on as they are: JSON writes them as strings, which hold
// no object.

/// A seed whose value is decoded through a [`Watched`] deserializer.
struct WatchedSeed<'w, S> {
    inner: S,
    watch: &'w Watch,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for WatchedSeed<'_, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.inner
            .deserialize(Watched::new(deserializer, self.watch))
    }
}

struct WatchedMap<'w, A> {
    inner: A,
    watch: &'w Watch,
}

impl<'w, A> WatchedMap<'w, A> {
    #[inline]
    fn new(inner: A, watch: &'w Watch) -> Self {
        Self { inner, watch }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WatchedMap<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.inner.next_key_seed(seed)
    }

    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.inner.next_value_seed(WatchedSeed {
            inner: seed,
            watch: self.watch,
        })
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

struct WatchedSeq<'w, A> {
    inner: A,
    watch: &'w Watch,
}

impl<'w, A> WatchedSeq<'w, A> {
    #[inline]
    fn new(inner: A, watch: &'w Watch) -> Self {
        Self { inner, watch }
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for WatchedSeq<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        self.inner.next_element_seed(WatchedSeed {
            inner: seed,
            watch: self.watch,
        })
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

struct WatchedEnum<'w, A> {
    inner: A,
    watch: &'w Watch,
}

impl<'w, A> WatchedEnum<'w, A> {
    #[inline]
    fn new(inner: A, watch: &'w Watch) -> Self {
        Self { inner, watch }
    }
}

impl<'de, 'w, A: EnumAccess<'de>> EnumAccess<'de> for WatchedEnum<'w, A> {
    type Error = A::Error;
    type Variant = WatchedVariant<'w, A::Variant>;

    #[inline]
    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), A::Error> {
        let (variant, data) = self.inner.variant_seed(seed)?;
        let data = WatchedVariant {
            inner: data,
            watch: self.watch,
        };
        Ok((variant, data))
    }
}

struct WatchedVariant<'w, A> {
    inner: A,
    watch: &'w Watch,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for WatchedVariant<'_, A> {
    type Error = A::Error;

    #[inline]
    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }

    #[inline]
    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        self.inner.newtype_variant_seed(WatchedSeed {
            inner: seed,
            watch: self.watch,
        })
    }

    #[inline]
    fn tuple_variant<V: serde::de::Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let visitor = WatchedVisitor::new(visitor, self.watch, Door::Other);
        self.inner.tuple_variant(len, visitor)
    }

    /// A struct variant serde derives refuses a field named twice, as a struct does.
    #[inline]
    fn struct_variant<V: serde::de::Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let visitor = WatchedVisitor::new(visitor, self.watch, Door::Struct);
        self.inner.struct_variant(fields, visitor)
    }
}

#[cfg(test)]
mod tests;
