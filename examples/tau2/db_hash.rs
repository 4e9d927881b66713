//! τ²'s database hash (`get_db_hash()`): the SHA-256, in hex, of
//! `json.dumps(db.model_dump(), sort_keys=True, default=str)`. The text is Python's, byte for
//! byte: keys sorted, `", "` and `": "` between items, every character outside printable ASCII
//! escaped as `\uXXXX` (surrogate pairs above U+FFFF), and floats as Python's `repr` writes
//! them (`100.0`, `1e-05`, `1e+16`).

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// τ²'s hash of a database: the models' fields are what `model_dump()` gives, once serialized.
pub(crate) fn db_hash(db: &impl Serialize) -> Result<String, serde_json::Error> {
    let value = serde_json::to_value(db)?;
    let mut text = String::with_capacity(1 << 20);
    write_value(&mut text, &value);
    let digest = Sha256::digest(text.as_bytes());
    Ok(digest.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// `value` as Python's `json.dumps(value, sort_keys=True)` writes it.
pub(crate) fn python_json(value: &Value) -> String {
    let mut text = String::new();
    write_value(&mut text, value);
    text
}

/// Python's `round(value, 2)`: Rust's fixed-precision formatting rounds the float's exact
/// value, ties to even, as Python does.
pub(crate) fn round2(value: f64) -> f64 {
    format!("{value:.2}").parse().unwrap_or(value)
}

/// Appends `value` as Python's `json.dumps(value, sort_keys=True)` writes it.
fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => match (number.as_i64(), number.as_u64(), number.as_f64()) {
            (Some(integer), _, _) if !number.is_f64() => out.push_str(&integer.to_string()),
            (_, Some(integer), _) if !number.is_f64() => out.push_str(&integer.to_string()),
            (_, _, Some(float)) => out.push_str(&python_float(float)),
            _ => out.push_str(&number.to_string()),
        },
        Value::String(text) => write_string(out, text),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            // Python sorts str keys by code point, which is the byte order of their UTF-8.
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (index, (key, item)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_string(out, key);
                out.push_str(": ");
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// A string as `json.dumps` writes it with `ensure_ascii=True` (its default).
fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// A float as Python's `repr` writes it: the shortest digits that read back to it (as Rust's
/// `{:e}` finds them), positional when the decimal exponent is from -4 to 15, else
/// scientific with a signed exponent of at least two digits.
pub(crate) fn python_float(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if value == 0.0 {
        return if value.is_sign_negative() {
            "-0.0"
        } else {
            "0.0"
        }
        .into();
    }
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let text = if point <= 0 {
            format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            let (whole, fraction) = digits.split_at(point as usize);
            format!("{whole}.{fraction}")
        };
        format!("{sign}{text}")
    } else {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_owned()
        } else {
            format!("{first}.{rest}")
        };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        format!(
            "{sign}{mantissa}e{exponent_sign}{:02}",
            exponent.unsigned_abs()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_python_writes_them() {
        for (value, python) in [
            (100.0, "100.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1234567890123456.0, "1234567890123456.0"),
            (1e16, "1e+16"),
            (1.25e22, "1.25e+22"),
            (123.456, "123.456"),
            (0.0, "0.0"),
        ] {
            assert_eq!(python_float(value), python, "{value}");
        }
    }

    #[test]
    fn text_as_python_writes_it() {
        let mut out = String::new();
        write_value(
            &mut out,
            &serde_json::json!({"b": [1, 2.0, null], "a": "é\u{1F600}\"\n\u{7f}"}),
        );
        assert_eq!(
            out,
            r#"{"a": "\u00e9\ud83d\ude00\"\n\u007f", "b": [1, 2.0, null]}"#
        );
    }
}
