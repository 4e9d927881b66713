//! Text as a person reads it before deciding: every character that would act on the text
//! rather than show (reorder it, hide in it, move the cursor, clear a screen) shown instead as a
//! visible marker, `⟨U+202E⟩`. The approval page, the terminal approver and the question an
//! MCP host's user is asked all show what a model or a tool wrote through here, so what a
//! person reads is what runs.
//!
//! The characters made visible:
//!
//! - control characters (Unicode category Cc: C0, DEL, C1), escape sequences included: their
//!   `ESC` is shown, so the rest of the sequence prints as plain text;
//! - format characters (category Cf): the bidirectional controls (U+202A–202E, U+2066–2069,
//!   U+200E, U+200F, U+061C), the zero-width ones (U+200B–200D, U+2060, U+FEFF), the tag
//!   characters (U+E0000–E007F), the soft hyphen and the rest of the category;
//! - the line and paragraph separators U+2028 and U+2029, which break a line where a line
//!   break is not expected.
//!
//! A line break (`\n`) and a tab (`\t`) are text in [`Visible::text`], which keeps the lines of
//! a multi-line answer; a carriage return, which lets what follows overwrite a terminal's line,
//! is always shown. [`Visible::line`] shows `\n` and `\t` too, for what must stay one line.

// The JSON layout the approval page and the MCP question share.
#[cfg(any(feature = "mcp", feature = "approvals"))]
pub(crate) mod json;

use std::fmt;

use unicode_general_category::{get_general_category, GeneralCategory};

/// Text made safe to show a person: every hidden character replaced by its marker, and which
/// ones there were, so that a surface can warn.
///
/// # Examples
///
/// ```
/// use tool_sdk::gate::Visible;
///
/// // Shown as written, the address below reads `team@example.com`, reversed by U+202E.
/// let shown = Visible::text("\u{202E}moc.elpmaxe@maet");
/// assert_eq!(shown.as_str(), "⟨U+202E⟩moc.elpmaxe@maet");
/// assert_eq!(shown.hidden(), ['\u{202E}']);
/// assert!(shown.warning().unwrap().contains("U+202E"));
///
/// // A terminal escape sequence prints as text; the line breaks of an answer stay.
/// assert_eq!(Visible::text("ok\n\x1b[2J").as_str(), "ok\n⟨U+001B⟩[2J");
/// assert_eq!(Visible::line("a\nb").as_str(), "a⟨U+000A⟩b");
/// assert!(!Visible::text("naïve café 東京").has_hidden());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visible {
    shown: String,
    /// The hidden characters found, each once, in the order they first occur.
    hidden: Vec<char>,
}

impl Visible {
    /// `text` with its hidden characters made visible; line breaks and tabs stay text.
    pub fn text(text: &str) -> Self {
        Self::build(text, Lines::Kept)
    }

    /// `text` as one line: line breaks and tabs are made visible too.
    pub fn line(text: &str) -> Self {
        Self::build(text, Lines::Shown)
    }

    fn build(text: &str, lines: Lines) -> Self {
        let mut shown = String::with_capacity(text.len());
        let mut hidden = Vec::new();
        for piece in pieces(text, lines) {
            match piece {
                Piece::Text(text) => shown.push_str(text),
                Piece::Hidden(c) => {
                    shown.push_str(&marker(c));
                    if !hidden.contains(&c) {
                        hidden.push(c);
                    }
                }
            }
        }
        Self { shown, hidden }
    }

    /// The text to show.
    pub fn as_str(&self) -> &str {
        &self.shown
    }

    /// The text to show, owned.
    pub fn into_string(self) -> String {
        self.shown
    }

    /// Whether the text held characters that would not have shown as written.
    pub fn has_hidden(&self) -> bool {
        !self.hidden.is_empty()
    }

    /// The hidden characters the text held, each once, in the order they first occur.
    pub fn hidden(&self) -> &[char] {
        &self.hidden
    }

    /// What a person is told when the text held hidden characters, in the same words on every
    /// surface; `None` when it held none.
    pub fn warning(&self) -> Option<String> {
        warning(&self.hidden)
    }
}

impl fmt::Display for Visible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

/// The warning about `hidden` characters (see [`Visible::warning`]).
pub(crate) fn warning(hidden: &[char]) -> Option<String> {
    if hidden.is_empty() {
        return None;
    }
    const LISTED: usize = 8;
    let mut names: Vec<String> = hidden.iter().take(LISTED).map(|&c| code(c)).collect();
    if hidden.len() > LISTED {
        names.push(format!("{} more", hidden.len() - LISTED));
    }
    Some(format!(
        "Hidden characters: this text holds characters that would not show as written, or \
         would reorder or hide what is around them ({}). Each is shown as a ⟨U+…⟩ marker; what \
         runs gets the characters themselves.",
        names.join(", ")
    ))
}

/// Whether line breaks and tabs are text or shown as markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lines {
    /// `\n` and `\t` are text.
    Kept,
    /// `\n` and `\t` are shown as markers.
    Shown,
}

/// A run of text that shows as written, or one hidden character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    Text(&'a str),
    Hidden(char),
}

/// `text` cut into what shows as written and the hidden characters between, in order: how a
/// surface that marks hidden characters its own way (the page, with an element) walks a text.
pub(crate) fn pieces(text: &str, lines: Lines) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        if is_hidden(first, lines) {
            rest = &rest[first.len_utf8()..];
            return Some(Piece::Hidden(first));
        }
        let end = rest
            .char_indices()
            .find(|&(_, c)| is_hidden(c, lines))
            .map_or(rest.len(), |(at, _)| at);
        let (shown, after) = rest.split_at(end);
        rest = after;
        Some(Piece::Text(shown))
    })
}

/// `c` as a marker: `⟨U+202E⟩`.
pub(crate) fn marker(c: char) -> String {
    format!("⟨{}⟩", code(c))
}

/// `c`'s code point: `U+202E`.
pub(crate) fn code(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// Whether `c` would act on the text rather than show (see the [module](self)).
fn is_hidden(c: char, lines: Lines) -> bool {
    if matches!(c, '\n' | '\t') {
        return lines == Lines::Shown;
    }
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    ) || ('\u{E0000}'..='\u{E007F}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bidi_control_and_invisible_character_is_shown() {
        let named = [
            '\u{202A}',
            '\u{202B}',
            '\u{202C}',
            '\u{202D}',
            '\u{202E}', // embeddings, overrides
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}', // isolates
            '\u{200E}',
            '\u{200F}',
            '\u{061C}', // marks
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{2060}',
            '\u{FEFF}', // zero width
            '\u{E0000}',
            '\u{E0001}',
            '\u{E0041}',
            '\u{E007F}', // tags
            '\u{00AD}',
            '\u{2028}',
            '\u{2029}', // soft hyphen, separators
            '\u{0000}',
            '\u{0007}',
            '\u{0008}',
            '\r',
            '\u{001B}',
            '\u{007F}',
            '\u{0085}',
            '\u{009B}', // controls: C0, DEL, C1 (NEL, CSI)
        ];
        for c in named {
            let text = format!("a{c}b");
            let shown = Visible::text(&text);
            assert_eq!(shown.as_str(), format!("a{}b", marker(c)), "{:?}", code(c));
            assert_eq!(shown.hidden(), [c]);
            assert!(Visible::line(&text).has_hidden());
        }
    }

    #[test]
    fn line_breaks_and_tabs_are_text_unless_one_line_is_asked() {
        let text = "one\n\ttwo";
        assert_eq!(Visible::text(text).as_str(), text);
        assert!(!Visible::text(text).has_hidden());
        assert_eq!(Visible::line(text).as_str(), "one⟨U+000A⟩⟨U+0009⟩two");
        // A carriage return would let what follows overwrite the line: always shown.
        assert_eq!(Visible::text("pay 5\rpay 9").as_str(), "pay 5⟨U+000D⟩pay 9");
    }

    #[test]
    fn text_that_shows_as_written_is_left_alone() {
        for text in [
            "",
            "plain",
            "naïve café",
            "東京 ٣ שלום مرحبا",
            "emoji 👩 👧",
            "⟨U+202E⟩ written by hand",
        ] {
            let shown = Visible::text(text);
            assert_eq!(shown.as_str(), text);
            assert!(!shown.has_hidden(), "{text}");
            assert_eq!(shown.warning(), None);
        }
    }

    #[test]
    fn each_hidden_character_is_listed_once_in_order_of_appearance() {
        let shown = Visible::text("\u{202E}x\u{200B}y\u{202E}");
        assert_eq!(shown.hidden(), ['\u{202E}', '\u{200B}']);
        let warning = shown.warning().expect("a warning");
        assert!(warning.contains("(U+202E, U+200B)"), "{warning}");
    }

    #[test]
    fn pieces_alternate_between_text_and_hidden_characters() {
        let pieces: Vec<_> = pieces("ab\u{202E}\u{202C}cd", Lines::Kept).collect();
        assert_eq!(
            pieces,
            [
                Piece::Text("ab"),
                Piece::Hidden('\u{202E}'),
                Piece::Hidden('\u{202C}'),
                Piece::Text("cd")
            ]
        );
    }
}
