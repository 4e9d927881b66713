//! Canonical JSON written from the arguments text itself, so that no number is rounded on the
//! way (`serde_json::Value` keeps a number as `u64`, `i64` or `f64`, and merges every pair of
//! numbers that round to the same `f64`).
//!
//! What counts as the same:
//!
//! - objects with the same members in any order (sorted by key; a key given twice keeps both
//!   members, in their order, so such an object is only the same as one spelled alike);
//! - strings with the same characters, however escaped;
//! - integers (digits only, no fraction, no exponent) with the same digits: `100` is `100`,
//!   and `-0` is not `0`;
//! - numbers with a fraction or an exponent when they denote exactly the same decimal value:
//!   `1e2`, `100.0` and `1.00E+2` are one number, `0.10000000000000000001` is not `0.1`; the
//!   sign of zero is kept (`-0.0` is not `0.0`, as in floating point);
//! - never an integer and a number with a fraction or exponent: `100` is not `1e2`. Readers
//!   (serde's among them) decode the first as an integer and the second as a float, and an
//!   integer parameter accepts only the first.

use serde::de::IgnoredAny;

/// Nesting deeper than this is not canonicalised (the text is then kept as it is): the same
/// limit serde_json's parser keeps, so nothing the tool could decode is left out.
const MAX_DEPTH: usize = 128;

/// Exponent magnitudes up to this many digits are adjusted in `i128`; longer ones digit by
/// digit.
const SMALL_EXPONENT_DIGITS: usize = 30;

/// The canonical text of `text`, or `None` when it is not JSON (or nests too deep).
pub(super) fn canonical(text: &str) -> Option<String> {
    // Validates the whole text first (syntax, escapes, nothing after the value) without
    // building anything; the writer below then only has to read well-formed JSON.
    serde_json::from_str::<IgnoredAny>(text).ok()?;
    let mut writer = Writer {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    let mut out = String::with_capacity(text.len());
    writer.value(&mut out, 0)?;
    Some(out)
}

struct Writer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Writer<'a> {
    fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn value(&mut self, out: &mut String, depth: usize) -> Option<()> {
        match self.peek()? {
            b'{' => self.object(out, depth + 1),
            b'[' => self.array(out, depth + 1),
            b'"' => {
                let string = self.string()?;
                out.push_str(&serde_json::to_string(&string).ok()?);
                Some(())
            }
            b't' => self.literal(out, "true"),
            b'f' => self.literal(out, "false"),
            b'n' => self.literal(out, "null"),
            _ => self.number(out),
        }
    }

    fn object(&mut self, out: &mut String, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.eat(b'{')?;
        let mut members: Vec<(String, String)> = Vec::new();
        if self.eat(b'}').is_none() {
            loop {
                let key = self.string()?;
                self.eat(b':')?;
                let mut value = String::new();
                self.value(&mut value, depth)?;
                members.push((key, value));
                if self.eat(b',').is_none() {
                    self.eat(b'}')?;
                    break;
                }
            }
        }
        // Stable: members of one key keep their order.
        members.sort_by(|a, b| a.0.cmp(&b.0));
        out.push('{');
        for (i, (key, value)) in members.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(key).ok()?);
            out.push(':');
            out.push_str(value);
        }
        out.push('}');
        Some(())
    }

    fn array(&mut self, out: &mut String, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.eat(b'[')?;
        out.push('[');
        if self.eat(b']').is_none() {
            loop {
                self.value(out, depth)?;
                if self.eat(b',').is_none() {
                    self.eat(b']')?;
                    break;
                }
                out.push(',');
            }
        }
        out.push(']');
        Some(())
    }

    /// The string starting here, unescaped.
    fn string(&mut self) -> Option<String> {
        self.eat(b'"')?;
        let start = self.at - 1;
        loop {
            match *self.bytes.get(self.at)? {
                b'"' => break,
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        serde_json::from_str(self.text.get(start..self.at)?).ok()
    }

    fn literal(&mut self, out: &mut String, word: &str) -> Option<()> {
        let end = self.at + word.len();
        (self.text.get(self.at..end)? == word).then_some(())?;
        self.at = end;
        out.push_str(word);
        Some(())
    }

    fn number(&mut self, out: &mut String) -> Option<()> {
        let start = self.at;
        let negative = self.bytes.get(self.at) == Some(&b'-');
        if negative {
            self.at += 1;
        }
        let integer = self.digits();
        let fraction = if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            Some(self.digits())
        } else {
            None
        };
        let exponent = if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            let negative = match self.bytes.get(self.at) {
                Some(b'-') => {
                    self.at += 1;
                    true
                }
                Some(b'+') => {
                    self.at += 1;
                    false
                }
                _ => false,
            };
            Some((negative, self.digits()))
        } else {
            None
        };
        if integer.is_empty() {
            return None;
        }
        if fraction.is_none() && exponent.is_none() {
            // JSON allows no leading zeros, so an integer's text is canonical already.
            out.push_str(self.text.get(start..self.at)?);
            return Some(());
        }
        let fraction = fraction.unwrap_or("");
        write_decimal(
            out,
            negative,
            integer,
            fraction,
            exponent.unwrap_or((false, "")),
        )
    }

    fn digits(&mut self) -> &'a str {
        let start = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        let text: &'a str = self.text;
        text.get(start..self.at).unwrap_or("")
    }
}

/// Writes `±integer.fraction × 10^exponent` as `±<digits>e<exponent>`, with no leading or
/// trailing zero in the digits: one text per decimal value. Zero is `0e0` or `-0e0`.
fn write_decimal(
    out: &mut String,
    negative: bool,
    integer: &str,
    fraction: &str,
    (exponent_negative, exponent): (bool, &str),
) -> Option<()> {
    if negative {
        out.push('-');
    }
    let digits = format!("{integer}{fraction}");
    let significant = digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    if trimmed.is_empty() {
        out.push_str("0e0");
        return Some(());
    }
    // value = trimmed × 10^(exponent − fraction digits + trailing zeros dropped)
    let shift = i128::try_from(significant.len() - trimmed.len()).ok()?
        - i128::try_from(fraction.len()).ok()?;
    out.push_str(trimmed);
    out.push('e');
    out.push_str(&shifted_exponent(exponent_negative, exponent, shift)?);
    Some(())
}

/// `±exponent + shift` in decimal, for an exponent of any length. `shift` is bounded by the
/// length of the text, far below `10^SMALL_EXPONENT_DIGITS`.
fn shifted_exponent(negative: bool, exponent: &str, shift: i128) -> Option<String> {
    let magnitude = exponent.trim_start_matches('0');
    if magnitude.len() <= SMALL_EXPONENT_DIGITS {
        let value: i128 = if magnitude.is_empty() {
            0
        } else {
            magnitude.parse().ok()?
        };
        let signed = if negative { -value } else { value };
        return Some((signed + shift).to_string());
    }
    // |exponent| ≥ 10^SMALL_EXPONENT_DIGITS > |shift|: the sign stays, the magnitude moves by
    // |shift| towards or away from zero.
    let away_from_zero = (shift > 0) != negative;
    let moved = if away_from_zero {
        add_small(magnitude, shift.unsigned_abs())?
    } else {
        subtract_small(magnitude, shift.unsigned_abs())?
    };
    Some(if negative { format!("-{moved}") } else { moved })
}

/// The low `SMALL_EXPONENT_DIGITS` digits of `digits` as a number, and the digits above them.
fn split_low(digits: &str) -> Option<(&str, u128)> {
    let (high, low) = digits.split_at(digits.len().checked_sub(SMALL_EXPONENT_DIGITS)?);
    Some((high, low.parse().ok()?))
}

const LOW_BASE: u128 = 10u128.pow(SMALL_EXPONENT_DIGITS as u32);

fn add_small(digits: &str, amount: u128) -> Option<String> {
    let (high, low) = split_low(digits)?;
    let sum = low.checked_add(amount)?;
    let (high, low) = if sum >= LOW_BASE {
        (step(high, 1)?, sum - LOW_BASE)
    } else {
        (high.to_owned(), sum)
    };
    Some(join(&high, low))
}

fn subtract_small(digits: &str, amount: u128) -> Option<String> {
    let (high, low) = split_low(digits)?;
    let (high, low) = match low.checked_sub(amount) {
        Some(low) => (high.to_owned(), low),
        None => (step(high, -1)?, low + LOW_BASE - amount),
    };
    Some(join(&high, low))
}

/// `digits` (no leading zero) plus or minus one.
fn step(digits: &str, by: i8) -> Option<String> {
    let mut bytes = digits.as_bytes().to_vec();
    let (from, to) = if by > 0 { (b'9', b'0') } else { (b'0', b'9') };
    for byte in bytes.iter_mut().rev() {
        if *byte == from {
            *byte = to;
        } else {
            *byte = if by > 0 { *byte + 1 } else { *byte - 1 };
            return String::from_utf8(bytes).ok();
        }
    }
    // Carried out of the top digit: only possible when adding.
    (by > 0).then(|| format!("1{}", String::from_utf8_lossy(&bytes)))
}

fn join(high: &str, low: u128) -> String {
    let joined = format!("{high}{low:0width$}", width = SMALL_EXPONENT_DIGITS);
    match joined.trim_start_matches('0') {
        "" => "0".to_owned(),
        trimmed => trimmed.to_owned(),
    }
}
