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

mod access;
mod visitor;

use std::cell::Cell;

use serde::de::{Deserializer, Visitor};

use self::visitor::{Door, WatchedVisitor};

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

/// The calls that hand the visitor nothing but a scalar, passed on with the visitor wrapped
/// all the same: a decoder may answer one with a list (bytes from a JSON array, say).
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

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Watched<'_, D> {
    type Error = D::Error;

    pass_on! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_option
        deserialize_unit deserialize_seq deserialize_identifier
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

#[cfg(test)]
mod tests;
