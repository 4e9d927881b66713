//! Results hold finite numbers only. JSON has no NaN or infinity, and `serde_json` writes them
//! as `null`: a tool returning `f64::NAN` where its output schema says `{"type": "number"}`
//! would answer `null`, which a client checking the schema refuses and a model reads as "no
//! value". Such a result is the tool's failure instead, in every build.
//!
//! The check rides on the one serialization of the result: [`Finite`] hands the value a
//! serializer that forwards every call to `serde_json`'s and refuses a float that is not
//! finite, so a result is neither walked twice nor copied, and nothing is allocated for it.

use std::fmt::Display;

use serde::ser::{self, Serialize, Serializer};

/// What the error of a non-finite number says; the failure the tool reports.
pub(crate) const NOT_FINITE: &str =
    "the result holds a number that is not finite (NaN or infinity), which JSON cannot carry";

/// `T` serialized with every float checked to be finite.
pub(crate) struct Finite<'a, T: ?Sized>(pub(crate) &'a T);

impl<T: Serialize + ?Sized> Serialize for Finite<'_, T> {
    #[inline]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Checked(serializer))
    }
}

/// A serializer that forwards to `S`, refusing non-finite floats; compound values hand their
/// members the same.
struct Checked<S>(S);

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            #[inline]
            fn $method(self, $($arg: $ty),*) -> Result<S::Ok, S::Error> {
                self.0.$method($($arg),*)
            }
        )*
    };
}

impl<S: Serializer> Serializer for Checked<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Checked<S::SerializeSeq>;
    type SerializeTuple = Checked<S::SerializeTuple>;
    type SerializeTupleStruct = Checked<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Checked<S::SerializeTupleVariant>;
    type SerializeMap = Checked<S::SerializeMap>;
    type SerializeStruct = Checked<S::SerializeStruct>;
    type SerializeStructVariant = Checked<S::SerializeStructVariant>;

    forward! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<S::Ok, S::Error> {
        if !v.is_finite() {
            return Err(ser::Error::custom(NOT_FINITE));
        }
        self.0.serialize_f32(v)
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<S::Ok, S::Error> {
        if !v.is_finite() {
            return Err(ser::Error::custom(NOT_FINITE));
        }
        self.0.serialize_f64(v)
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&Finite(value))
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, &Finite(value))
    }

    #[inline]
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_variant(name, index, variant, &Finite(value))
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.0.serialize_seq(len).map(Checked)
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(Checked)
    }

    #[inline]
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.0.serialize_tuple_struct(name, len).map(Checked)
    }

    #[inline]
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0
            .serialize_tuple_variant(name, index, variant, len)
            .map(Checked)
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.0.serialize_map(len).map(Checked)
    }

    #[inline]
    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.0.serialize_struct(name, len).map(Checked)
    }

    #[inline]
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0
            .serialize_struct_variant(name, index, variant, len)
            .map(Checked)
    }

    #[inline]
    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.collect_str(value)
    }

    #[inline]
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// The compound serializers, each handing its members a [`Finite`].
macro_rules! compound {
    ($($trait:ident { $($method:ident($($name:ident: &'static str)?)),* })*) => {
        $(
            impl<S: ser::$trait> ser::$trait for Checked<S> {
                type Ok = S::Ok;
                type Error = S::Error;

                $(
                    #[inline]
                    fn $method<T: Serialize + ?Sized>(
                        &mut self,
                        $($name: &'static str,)?
                        value: &T,
                    ) -> Result<(), S::Error> {
                        self.0.$method($($name,)? &Finite(value))
                    }
                )*

                #[inline]
                fn end(self) -> Result<S::Ok, S::Error> {
                    self.0.end()
                }
            }
        )*
    };
}

compound! {
    SerializeSeq { serialize_element() }
    SerializeTuple { serialize_element() }
    SerializeTupleStruct { serialize_field() }
    SerializeTupleVariant { serialize_field() }
    SerializeMap { serialize_key(), serialize_value() }
    SerializeStruct { serialize_field(key: &'static str) }
    SerializeStructVariant { serialize_field(key: &'static str) }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{Finite, NOT_FINITE};

    fn written<T: serde::Serialize>(value: &T) -> Result<String, String> {
        serde_json::to_string(&Finite(value)).map_err(|error| error.to_string())
    }

    #[derive(serde::Serialize)]
    struct Reading {
        place: &'static str,
        celsius: Option<f32>,
        history: Vec<(u8, f64)>,
    }

    #[test]
    fn finite_results_are_written_as_serde_json_writes_them() {
        let reading = Reading {
            place: "Oslo",
            celsius: Some(-2.5),
            history: vec![(1, 0.1), (2, 1e300)],
        };
        assert_eq!(
            written(&reading),
            Ok(serde_json::to_string(&reading).unwrap())
        );
        let map = BTreeMap::from([(1.5_f64.to_string(), [1.0_f64])]);
        assert_eq!(written(&map), Ok(serde_json::to_string(&map).unwrap()));
        assert_eq!(written(&()), Ok("null".to_owned()));
    }

    #[test]
    fn a_number_that_is_not_finite_is_refused_at_any_depth() {
        assert_eq!(written(&f64::NAN), Err(NOT_FINITE.to_owned()));
        assert_eq!(written(&f32::INFINITY), Err(NOT_FINITE.to_owned()));
        let reading = Reading {
            place: "Oslo",
            celsius: None,
            history: vec![(1, 0.1), (2, f64::NEG_INFINITY)],
        };
        assert_eq!(written(&reading), Err(NOT_FINITE.to_owned()));
        let nested = Some(Reading {
            place: "Oslo",
            celsius: Some(f32::NAN),
            history: Vec::new(),
        });
        assert_eq!(written(&nested), Err(NOT_FINITE.to_owned()));
    }
}
