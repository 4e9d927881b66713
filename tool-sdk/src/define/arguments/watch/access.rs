//! The accesses a watched visitor hands on (an object's members, a list's items, an enum's
//! variant and its data), each wrapping what it yields so that a value inside is watched.
//!
//! Keys and variant names are passed on as they are: JSON writes them as strings, which hold
//! no object.

use serde::de::{DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess};

use super::visitor::{Door, WatchedVisitor};
use super::{Watch, Watched};

/// A seed whose value is decoded through a [`Watched`] deserializer.
pub(super) struct WatchedSeed<'w, S> {
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

pub(super) struct WatchedMap<'w, A> {
    inner: A,
    watch: &'w Watch,
}

impl<'w, A> WatchedMap<'w, A> {
    #[inline]
    pub(super) fn new(inner: A, watch: &'w Watch) -> Self {
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

pub(super) struct WatchedSeq<'w, A> {
    inner: A,
    watch: &'w Watch,
}

impl<'w, A> WatchedSeq<'w, A> {
    #[inline]
    pub(super) fn new(inner: A, watch: &'w Watch) -> Self {
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

pub(super) struct WatchedEnum<'w, A> {
    inner: A,
    watch: &'w Watch,
}

impl<'w, A> WatchedEnum<'w, A> {
    #[inline]
    pub(super) fn new(inner: A, watch: &'w Watch) -> Self {
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

pub(super) struct WatchedVariant<'w, A> {
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
