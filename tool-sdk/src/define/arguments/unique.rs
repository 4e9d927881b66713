//! A JSON value read with each object key at most once, at any depth: the arguments of a tool
//! whose schema is known only at run time are refused on a repeated key, as a typed tool's are
//! (serde's `duplicate field`). A plain `Value` keeps the last of two keys, while the person
//! deciding, a log, or another parser may have read the first: what was approved must be what
//! runs.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// A JSON value with no repeated key in any of its objects.
pub(super) struct UniqueKeys(pub(super) Value);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(UniqueKeysVisitor)
            .map(UniqueKeys)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        // JSON text has no NaN or infinity, so every number read is finite.
        Ok(Value::from(value))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        UniqueKeys::deserialize(deserializer).map(|value| value.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(UniqueKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                // serde's words for a struct's repeated field, which the classifier knows.
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            let UniqueKeys(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::UniqueKeys;
    use serde_json::json;

    fn read(text: &str) -> Result<serde_json::Value, String> {
        serde_json::from_str::<UniqueKeys>(text)
            .map(|value| value.0)
            .map_err(|error| error.to_string())
    }

    #[test]
    fn reads_what_a_value_reads_when_no_key_repeats() {
        let text = r#"{"a": [1, -2, 3.5, "x", null, true, {"b": {}}], "c": 18446744073709551615}"#;
        assert_eq!(
            read(text).unwrap(),
            serde_json::from_str::<serde_json::Value>(text).unwrap()
        );
        assert_eq!(
            read(r#"{"a": 1, "b": {"a": 2}}"#).unwrap(),
            json!({"a": 1, "b": {"a": 2}})
        );
    }

    #[test]
    fn refuses_a_repeated_key_at_any_depth() {
        for text in [r#"{"a": 1, "a": 2}"#, r#"{"x": [{"k": 1, "k": 1}]}"#] {
            let error = read(text).unwrap_err();
            assert!(error.starts_with("duplicate field `"), "{error}");
        }
    }
}
