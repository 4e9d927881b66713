//! Text a `const fn` can write: the JSON pointer of the schema being checked, and the message a
//! refusal becomes, in a buffer of fixed size (a `const fn` cannot allocate).

use crate::describe::rule::{Piece, Rule, PIECES};

/// Most tokens of a pointer kept; a deeper one is cut, which its message says with `…`.
const POINTER_TOKENS: usize = 96;

/// The JSON pointer from the root to the schema being checked, token by token.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pointer {
    tokens: [Piece<'static>; POINTER_TOKENS],
    len: usize,
    /// Tokens pushed past the capacity, still to be popped.
    over: usize,
}

impl Pointer {
    /// The root's pointer, empty.
    pub(crate) const ROOT: Pointer = Pointer {
        tokens: [Piece::Number(0); POINTER_TOKENS],
        len: 0,
        over: 0,
    };

    /// Steps into `token`.
    pub(crate) const fn push(&mut self, token: Piece<'static>) {
        if self.len < POINTER_TOKENS {
            self.tokens[self.len] = token;
            self.len += 1;
        } else {
            self.over += 1;
        }
    }

    /// Steps back out of the last token.
    pub(crate) const fn pop(&mut self) {
        if self.over > 0 {
            self.over -= 1;
        } else if self.len > 0 {
            self.len -= 1;
        }
    }

    /// How many tokens deep the pointer is.
    pub(crate) const fn len(&self) -> usize {
        self.len + self.over
    }

    /// Cuts the pointer back to its first `len` tokens.
    pub(crate) const fn truncate(&mut self, len: usize) {
        while self.len() > len {
            self.pop();
        }
    }
}

/// Most bytes of a message.
const MESSAGE_BYTES: usize = 4096;

/// A message written in a `const fn`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Message {
    bytes: [u8; MESSAGE_BYTES],
    len: usize,
    /// Whether some text did not fit.
    cut: bool,
}

impl Message {
    /// An empty message.
    pub(crate) const fn new() -> Message {
        Message {
            bytes: [0; MESSAGE_BYTES],
            len: 0,
            cut: false,
        }
    }

    /// Appends `text`, as much of it as fits, cut at a character's start.
    pub(crate) const fn text(&mut self, text: &str) {
        let text = text.as_bytes();
        let mut i = 0;
        while i < text.len() {
            // A character's bytes go together, or not at all.
            let mut end = i + 1;
            while end < text.len() && text[end] & 0xC0 == 0x80 {
                end += 1;
            }
            if self.len + (end - i) > MESSAGE_BYTES {
                self.cut = true;
                return;
            }
            while i < end {
                self.bytes[self.len] = text[i];
                self.len += 1;
                i += 1;
            }
        }
    }

    /// Appends `number` in decimal.
    pub(crate) const fn number(&mut self, mut number: usize) {
        let mut digits = [0u8; 20];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (number % 10) as u8;
            count += 1;
            number /= 10;
            if number == 0 {
                break;
            }
        }
        while count > 0 {
            count -= 1;
            if self.len < MESSAGE_BYTES {
                self.bytes[self.len] = digits[count];
                self.len += 1;
            } else {
                self.cut = true;
            }
        }
    }

    /// Appends `rule`'s words.
    pub(crate) const fn rule(&mut self, rule: &Rule<'_>) {
        let pieces = rule.pieces();
        let mut i = 0;
        while i < PIECES {
            match pieces[i] {
                Piece::Text(text) => self.text(text),
                Piece::Number(number) => self.number(number),
            }
            i += 1;
        }
    }

    /// Appends `pointer`, each token escaped as JSON pointers escape `~` and `/`.
    pub(crate) const fn pointer(&mut self, pointer: &Pointer) {
        let mut i = 0;
        while i < pointer.len {
            self.text("/");
            match pointer.tokens[i] {
                Piece::Number(number) => self.number(number),
                Piece::Text(token) => self.token(token),
            }
            i += 1;
        }
        if pointer.over > 0 {
            self.text("/…");
        }
    }

    /// Appends one pointer token, escaped.
    const fn token(&mut self, token: &str) {
        let bytes = token.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let escape = match bytes[i] {
                b'~' => "~0",
                b'/' => "~1",
                _ => "",
            };
            if !escape.is_empty() {
                self.text(split(token, start, i));
                self.text(escape);
                start = i + 1;
            }
            i += 1;
        }
        self.text(split(token, start, bytes.len()));
    }

    /// Ends the message with `…`, in the room the last characters leave when it is full.
    pub(crate) const fn cut_short(&mut self) {
        const MARK: &str = "…";
        while self.len + MARK.len() > MESSAGE_BYTES
            || (self.len > 0 && self.len < MESSAGE_BYTES && self.bytes[self.len] & 0xC0 == 0x80)
        {
            self.len -= 1;
        }
        self.text(MARK);
    }

    /// Whether some text did not fit.
    pub(crate) const fn is_cut(&self) -> bool {
        self.cut
    }

    /// How many bytes are written.
    pub(crate) const fn len(&self) -> usize {
        self.len
    }

    /// The text written from byte `from` to byte `to` (both where a piece of text began).
    pub(crate) const fn slice(&self, from: usize, to: usize) -> &str {
        let (head, _) = self.bytes.split_at(to);
        let (_, middle) = head.split_at(from);
        match core::str::from_utf8(middle) {
            Ok(text) => text,
            Err(_) => "",
        }
    }

    /// The message.
    pub(crate) const fn as_str(&self) -> &str {
        let (written, _) = self.bytes.split_at(self.len);
        match core::str::from_utf8(written) {
            Ok(text) => text,
            // Only whole characters are written.
            Err(_) => "",
        }
    }
}

/// `text[start..end]`, both at ASCII bytes (`~` or `/`, or an end).
const fn split(text: &str, start: usize, end: usize) -> &str {
    let (head, _) = text.as_bytes().split_at(end);
    let (_, middle) = head.split_at(start);
    match core::str::from_utf8(middle) {
        Ok(middle) => middle,
        Err(_) => "",
    }
}
