//! What a `pattern` needs of a regular expression engine beyond the plain ones some strict
//! decoders run: backreferences, lookaround, word boundaries.

/// The first feature of `pattern` (an ECMA-262 regular expression, as JSON Schema's `pattern`
/// is) that needs more than a plain engine — `"a backreference"` (`\1`, `\k<name>`), `"a
/// lookaround"` (`(?=`, `(?!`, `(?<=`, `(?<!`) or `"a word boundary"` (`\b`, `\B`) — or `None`.
/// Inside a character class these characters mean something else, and are not counted.
pub(crate) fn beyond_plain(pattern: &str) -> Option<&'static str> {
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('1'..='9') if !in_class => return Some("a backreference"),
                Some('k') if !in_class && chars.peek() == Some(&'<') => {
                    return Some("a backreference")
                }
                Some('b' | 'B') if !in_class => return Some("a word boundary"),
                _ => {}
            },
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class && chars.peek() == Some(&'?') => {
                let ahead: String = chars.clone().take(3).collect();
                if ["?=", "?!", "?<=", "?<!"]
                    .iter()
                    .any(|start| ahead.starts_with(start))
                {
                    return Some("a lookaround");
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::beyond_plain;

    #[test]
    fn plain_patterns_pass_and_each_feature_is_named() {
        for plain in [
            r"^[a-z]+$",
            r"^\d+\.\d{2} [A-Z]{3}$",
            r"(?:ab)+",
            r"[\b]",
            r"[(?=]",
            r"\\1",
            r"(?<name>x)",
        ] {
            assert_eq!(beyond_plain(plain), None, "{plain}");
        }
        for (pattern, feature) in [
            (r"^(\w)\1$", "a backreference"),
            (r"(?<n>a)\k<n>", "a backreference"),
            (r"^(?=.*\d).{8,}$", "a lookaround"),
            (r"^(?!x)", "a lookaround"),
            (r"(?<=a)b", "a lookaround"),
            (r"(?<!a)b", "a lookaround"),
            (r"\bcat\b", "a word boundary"),
            (r"a\B", "a word boundary"),
        ] {
            assert_eq!(beyond_plain(pattern), Some(feature), "{pattern}");
        }
    }
}
