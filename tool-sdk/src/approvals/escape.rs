//! Text made safe for HTML: what a model or a tool wrote shows as text, never as markup.

use std::fmt::Write as _;

/// `text` with the five characters HTML gives a meaning escaped, for element content and
/// quoted attribute values alike.
pub(super) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// A tool call's arguments as indented JSON, escaped; text that is not JSON as it came.
pub(super) fn arguments(raw: &str) -> String {
    let pretty = serde_json::from_str::<serde_json::Value>(raw)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok());
    escape(pretty.as_deref().unwrap_or(raw))
}

/// Appends `piece` to `html`: writing to a `String` cannot fail.
pub(super) fn push(html: &mut String, piece: std::fmt::Arguments<'_>) {
    let _ = html.write_fmt(piece);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_shows_as_text() {
        assert_eq!(
            escape(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
    }

    #[test]
    fn arguments_are_indented_and_escaped() {
        assert_eq!(
            arguments(r#"{"note":"<b>"}"#),
            "{\n  &quot;note&quot;: &quot;&lt;b&gt;&quot;\n}"
        );
        assert_eq!(arguments("not json <i>"), "not json &lt;i&gt;");
    }
}
