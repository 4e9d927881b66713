//! The fingerprint a decision binds to: the tool's name and its arguments in canonical JSON.

mod canonical;

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::model::ToolCall;

/// SHA-256 (hex) of a call's tool name and canonical arguments. Arguments that mean the same
/// (other key order, other whitespace) give the same fingerprint; any other change gives
/// another, so an approval of `delete_file(path="/tmp/a")` cannot run `delete_file(path="/")`.
///
/// # Examples
///
/// ```
/// use tool_sdk::gate::fingerprint;
/// use tool_sdk::ToolCall;
///
/// let a = fingerprint(&ToolCall::new("1", "rm", r#"{"path": "/tmp/a", "force": true}"#));
/// let b = fingerprint(&ToolCall::new("2", "rm", r#"{"force":true,"path":"/tmp/a"}"#));
/// let c = fingerprint(&ToolCall::new("1", "rm", r#"{"path": "/", "force": true}"#));
/// assert_eq!(a, b);
/// assert_ne!(a, c);
/// ```
pub fn fingerprint(call: &ToolCall) -> String {
    let mut hasher = Sha256::new();
    hasher.update((call.name.len() as u64).to_be_bytes());
    hasher.update(call.name.as_bytes());
    hasher.update(canonical_arguments(&call.arguments).as_bytes());
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(64);
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// Arguments in canonical JSON: object keys sorted, no whitespace, strings re-escaped one way,
/// numbers written from their text without rounding. Text that is not JSON is kept as it is
/// (such a call fails before it runs, but its fingerprint still tells it apart).
///
/// Two numbers are the same when both are integers with the same digits, or both have a
/// fraction or an exponent and denote exactly the same decimal value (`1e2` and `100.0`); an
/// integer is never the same as a number with a fraction or exponent (`100` and `1e2`, which an
/// integer parameter tells apart), and the sign of zero is kept (`-0` is not `0`).
///
/// # Examples
///
/// ```
/// use tool_sdk::gate::canonical_arguments;
///
/// assert_eq!(canonical_arguments(r#"{"b": 1, "a": [true, null]}"#), r#"{"a":[true,null],"b":1}"#);
/// assert_eq!(canonical_arguments("[1e2]"), canonical_arguments("[100.0]"));
/// assert_ne!(canonical_arguments("[100]"), canonical_arguments("[1e2]"));
/// assert_ne!(
///     canonical_arguments("[18446744073709551616]"),
///     canonical_arguments("[18446744073709551617]"),
/// );
/// ```
pub fn canonical_arguments(arguments: &str) -> String {
    canonical::canonical(arguments).unwrap_or_else(|| format!("\u{0}raw:{arguments}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str) -> bool {
        canonical_arguments(a) == canonical_arguments(b)
    }

    #[test]
    fn integers_beyond_64_bits_stay_apart() {
        assert!(!same(
            r#"{"n": 18446744073709551616}"#,
            r#"{"n": 18446744073709551617}"#
        ));
        assert!(!same(
            r#"{"n": -9223372036854775809}"#,
            r#"{"n": -9223372036854775810}"#
        ));
        let a = ToolCall::new("1", "pay", r#"{"cents": 18446744073709551616}"#);
        let b = ToolCall::new("1", "pay", r#"{"cents": 18446744073709551617}"#);
        assert_ne!(fingerprint(&a), fingerprint(&b));
    }

    #[test]
    fn long_decimals_are_not_rounded() {
        assert!(!same(r#"{"x": 0.10000000000000000001}"#, r#"{"x": 0.1}"#));
        assert!(!same(
            r#"[3.14159265358979323846264338327950288]"#,
            r#"[3.14159265358979323846264338327950289]"#
        ));
        assert!(!same("[1e400]", "[1e401]"));
        assert!(!same("[1e-400]", "[2e-400]"));
    }

    #[test]
    fn one_decimal_value_in_other_notations_is_one_number() {
        assert!(same("[1e2]", "[100.0]"));
        assert!(same("[1e2]", "[1.00E+2]"));
        assert!(same("[0.5]", "[5e-1]"));
        assert!(same("[0.0]", "[0e10]"));
        assert!(same("[-1.50]", "[-15E-1]"));
        assert!(same(
            "[123456789012345678901234567890.5e-30]",
            "[0.1234567890123456789012345678905]"
        ));
        assert!(same(
            "[1e99999999999999999999999999999]",
            "[10e99999999999999999999999999998]"
        ));
        assert!(!same(
            "[1e99999999999999999999999999999]",
            "[1e99999999999999999999999999998]"
        ));
        // Exponents too long for a machine integer, moved across a carry and a borrow.
        let nines = "9".repeat(40);
        let power = format!("1{}", "0".repeat(40));
        assert!(same(&format!("[10e{nines}]"), &format!("[1e{power}]")));
        assert!(same(&format!("[0.1e{power}]"), &format!("[1e{nines}]")));
        assert!(same(&format!("[10e-{power}]"), &format!("[1e-{nines}]")));
        assert!(!same(&format!("[10e{nines}]"), &format!("[1e{nines}]")));
    }

    #[test]
    fn an_integer_is_not_the_same_as_a_fraction_or_an_exponent() {
        // Integer parameters accept `100` and refuse `1e2` and `100.0`.
        assert!(!same("[100]", "[1e2]"));
        assert!(!same("[100]", "[100.0]"));
    }

    #[test]
    fn the_sign_of_zero_is_kept() {
        assert!(!same("[-0]", "[0]"));
        assert!(!same("[-0.0]", "[0.0]"));
        assert!(same("[-0.0]", "[-0e5]"));
        assert!(!same("[-0]", "[-0.0]"));
    }

    #[test]
    fn key_order_whitespace_and_escapes_do_not_matter() {
        assert!(same(
            r#"{"b": [1, {"d": true, "c": null}], "a": "x"}"#,
            r#"{"a":"x","b":[1,{"c":null,"d":true}]}"#
        ));
        assert!(same(r#"{"\u0061": "\u00e9\n"}"#, "{\"a\": \"\u{e9}\\n\"}"));
        assert!(!same(r#"{"a": "x"}"#, r#"{"a": "y"}"#));
    }

    #[test]
    fn text_that_is_not_json_is_kept_apart() {
        assert!(!same("{", "{}"));
        assert!(!same("[1,]", "[1]"));
        assert!(!same("[01]", "[1]"));
        assert!(!same("{} x", "{}"));
        assert!(same("not json", "not json"));
        assert!(!same("not json", "not  json"));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(!same(
            &deep,
            &format!("{}{}", "[".repeat(199), "]".repeat(199))
        ));
        assert!(!same(r#"["\ud800"]"#, r#"["\ud801"]"#));
    }

    #[test]
    fn canonical_text_is_its_own_canonical_text() {
        for text in [
            r#"{"z": [1.5e-3, -0, 0.0, 12345678901234567890123], "a": {"k": "\u00e9"}}"#,
            "[1e99999999999999999999999999999999, -2.5E-99999999999999999999999999999999]",
            r#"{"a": 1, "a": 2}"#,
        ] {
            let once = canonical_arguments(text);
            assert_eq!(canonical_arguments(&once), once, "{text}");
        }
    }

    #[test]
    fn canonical_text_is_compact_sorted_json_for_plain_values() {
        assert_eq!(
            canonical_arguments(r#"{ "b" : [ 1 , -2 , "s" ] , "a" : false }"#),
            r#"{"a":false,"b":[1,-2,"s"]}"#
        );
    }
}
