//! Text made safe for HTML: what a model or a tool wrote shows as text, never as markup.

use std::fmt::Write as _;

use crate::gate::{code, json, marker, pieces, Lines, Piece, Visible};

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

/// Text a model, a tool or a person wrote, as element content: escaped, and every hidden
/// character (a bidirectional control, a zero-width or control character; see
/// [`Visible`](crate::gate::Visible)) shown as a marked `⟨U+202E⟩` instead of applied. Line
/// breaks and tabs stay text.
pub(super) fn shown(text: &str) -> String {
    let mut html = String::with_capacity(text.len());
    push_shown(&mut html, text, Lines::Kept);
    html
}

fn push_shown(html: &mut String, text: &str, lines: Lines) {
    for piece in pieces(text, lines) {
        match piece {
            Piece::Text(text) => html.push_str(&escape(text)),
            Piece::Hidden(c) => push(
                html,
                format_args!(
                    "<mark class=\"hidden-char\" title=\"a hidden character, {}\">{}</mark>",
                    code(c),
                    marker(c)
                ),
            ),
        }
    }
}

/// A tool call's arguments as the page shows them: indented JSON laid out from the text the
/// model wrote (numbers keep their digits, a key written twice shows twice), each string in an
/// element of its own that the style sheet isolates, so that right-to-left text in one value
/// cannot reorder what is around it; every hidden character marked. Text that is not JSON
/// shows as it came. With the HTML, the hidden characters found, for a warning.
pub(super) fn arguments(raw: &str) -> (String, Vec<char>) {
    let mut html = String::with_capacity(raw.len() + raw.len() / 4);
    let Some(tokens) = json::tokens(raw) else {
        push_shown(&mut html, raw, Lines::Kept);
        return (html, Visible::text(raw).hidden().to_vec());
    };
    // The strings as decoded: an escaped `\u202e` is the character itself when the call runs.
    let mut hidden = Vec::new();
    json::pretty(
        &tokens,
        &mut html,
        |text, html| {
            // Quoted, a line break or a tab is an escape (`\n`) that shows.
            let quoted = json::Token::quoted(text);
            for &c in Visible::line(&quoted).hidden() {
                if !hidden.contains(&c) {
                    hidden.push(c);
                }
            }
            html.push_str("<span class=\"string\">");
            push_shown(html, &quoted, Lines::Shown);
            html.push_str("</span>");
        },
        |text, html| push_shown(html, text, Lines::Shown),
    );
    (html, hidden)
}

/// A call's arguments as the text a person edits, escaped for a text area: indented JSON laid
/// out from the text the model wrote, each hidden character in a string written as its JSON
/// escape (`\u202e`), which means the same to the tool and shows as what it is. Text that is
/// not JSON comes as it is, its hidden characters marked.
pub(super) fn editable(raw: &str) -> String {
    let Some(tokens) = json::tokens(raw) else {
        return shown(raw);
    };
    let mut text = String::with_capacity(raw.len() + raw.len() / 4);
    json::pretty(
        &tokens,
        &mut text,
        |string, text| {
            for piece in pieces(&json::Token::quoted(string), Lines::Kept) {
                match piece {
                    Piece::Text(plain) => text.push_str(plain),
                    Piece::Hidden(c) => {
                        let mut units = [0u16; 2];
                        for unit in c.encode_utf16(&mut units) {
                            push(text, format_args!("\\u{unit:04x}"));
                        }
                    }
                }
            }
        },
        |scalar, text| text.push_str(scalar),
    );
    escape(&text)
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
            arguments(r#"{"note":"<b>"}"#).0,
            "{\n  <span class=\"string\">&quot;note&quot;</span>: \
             <span class=\"string\">&quot;&lt;b&gt;&quot;</span>\n}"
        );
        assert_eq!(arguments("not json <i>").0, "not json &lt;i&gt;");
    }

    #[test]
    fn hidden_characters_in_arguments_are_marked_and_reported() {
        let (html, hidden) = arguments("{\"to\":\"\u{202E}moc.elpmaxe@maet\",\"n\":1}");
        assert!(!html.contains('\u{202E}'), "{html}");
        assert!(
            html.contains(
                "&quot;<mark class=\"hidden-char\" title=\"a hidden character, U+202E\">\
                 ⟨U+202E⟩</mark>moc.elpmaxe@maet&quot;"
            ),
            "{html}"
        );
        assert_eq!(hidden, ['\u{202E}']);
        // Escaped in the JSON text, it is the character itself when the call runs.
        let (html, hidden) = arguments(r#"{"to":"\u202emoc"}"#);
        assert!(html.contains("⟨U+202E⟩</mark>moc"), "{html}");
        assert_eq!(hidden, ['\u{202E}']);
        assert_eq!(
            arguments("{\"n\": 18446744073709551617}").0,
            "{\n  <span class=\"string\">&quot;n&quot;</span>: 18446744073709551617\n}"
        );
    }

    #[test]
    fn editable_arguments_are_indented_json_whose_hidden_characters_are_escapes() {
        let text = editable("{\"to\":\"\u{202E}moc\",\"n\":1,\"tag\":\"\u{E0041}<b>\"}");
        assert_eq!(
            text,
            "{\n  &quot;to&quot;: &quot;\\u202emoc&quot;,\n  &quot;n&quot;: 1,\n  \
             &quot;tag&quot;: &quot;\\udb40\\udc41&lt;b&gt;&quot;\n}"
        );
        // What the person would send back means what the model wrote.
        let sent = "{\n  \"to\": \"\\u202emoc\",\n  \"n\": 1,\n  \"tag\": \"\\udb40\\udc41<b>\"\n}";
        let read: serde_json::Value = serde_json::from_str(sent).unwrap();
        assert_eq!(read["to"], "\u{202E}moc");
        assert_eq!(read["tag"], "\u{E0041}<b>");
    }

    #[test]
    fn free_text_keeps_its_lines_and_marks_the_rest() {
        assert_eq!(shown("a\nb <c>"), "a\nb &lt;c&gt;");
        assert_eq!(
            shown("x\u{2067}y"),
            "x<mark class=\"hidden-char\" title=\"a hidden character, U+2067\">⟨U+2067⟩</mark>y"
        );
    }
}
