//! Server-sent events (`text/event-stream`): bytes into events, and events to the provider's
//! reader of them.

use crate::model::{ChatDelta, ModelError};

/// Most bytes one event, or the whole reply's text and arguments, may hold.
pub(crate) const MAX_STREAM_BYTES: usize = 32 * 1024 * 1024;

/// What a provider makes of its events: deltas of the reply.
pub trait Assemble {
    /// Reads one event, appending the deltas it completes to `out`; `Ok(true)` when the
    /// answer is complete: nothing after it is read.
    fn event(&mut self, event: &Event, out: &mut Vec<ChatDelta>) -> Result<bool, ModelError>;

    /// The stream ended (without an event saying it was complete): hands out what is left, or
    /// says the answer was cut off.
    fn end(&mut self, out: &mut Vec<ChatDelta>) -> Result<(), ModelError>;
}

/// Turns the bytes of a streamed answer into deltas: server-sent events, each read by the
/// provider's [`Assemble`]. Feed it with [`push`](Self::push) as bytes arrive and call
/// [`end`](Self::end) when they stop.
#[derive(Debug, Default)]
pub(crate) struct SseParser<A> {
    events: EventDecoder,
    assembler: A,
}

impl<A: Assemble> SseParser<A> {
    /// Reads `bytes`, appending the deltas they complete to `out`. `Ok(true)` when the answer
    /// is complete (`[DONE]`): nothing after it is read.
    pub(crate) fn push(
        &mut self,
        bytes: &[u8],
        out: &mut Vec<ChatDelta>,
    ) -> Result<bool, ModelError> {
        let mut events = Vec::new();
        let decoded = self.events.push(bytes, &mut events);
        for event in events {
            if self.assembler.event(&event, out)? {
                return Ok(true);
            }
        }
        decoded.map(|()| false)
    }

    /// The bytes ended: reads what is left and checks the answer was complete.
    pub(crate) fn end(&mut self, out: &mut Vec<ChatDelta>) -> Result<(), ModelError> {
        let mut events = Vec::new();
        self.events.end(&mut events)?;
        for event in events {
            if self.assembler.event(&event, out)? {
                return Ok(());
            }
        }
        self.assembler.end(out)
    }
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Its `event:` field, when it has one.
    pub(crate) kind: Option<String>,
    /// Its `data:` lines, joined with `\n`.
    pub(crate) data: String,
}

/// Splits bytes into server-sent events (the WHATWG `text/event-stream` rules: lines end in
/// `\r\n`, `\n` or `\r`; a blank line ends an event; `:` starts a comment; one space after the
/// field's colon is dropped).
#[derive(Debug, Default)]
struct EventDecoder {
    /// Bytes of a line not ended yet.
    line: Vec<u8>,
    /// The last byte was a `\r`: a `\n` right after it ends no second line.
    after_cr: bool,
    kind: Option<String>,
    data: Option<String>,
}

impl EventDecoder {
    fn push(&mut self, bytes: &[u8], out: &mut Vec<Event>) -> Result<(), ModelError> {
        let mut start = 0;
        for (position, &byte) in bytes.iter().enumerate() {
            let after_cr = std::mem::replace(&mut self.after_cr, byte == b'\r');
            match byte {
                // The `\n` of a `\r\n`: the line already ended at the `\r`.
                b'\n' if after_cr => start = position + 1,
                b'\n' | b'\r' => {
                    self.line.extend_from_slice(&bytes[start..position]);
                    start = position + 1;
                    self.take_line(out)?;
                }
                _ => {}
            }
        }
        self.line.extend_from_slice(&bytes[start..]);
        if self.line.len() > MAX_STREAM_BYTES {
            return Err(too_large());
        }
        Ok(())
    }

    /// Reads the line gathered so far (keeping its buffer for the next one).
    fn take_line(&mut self, out: &mut Vec<Event>) -> Result<(), ModelError> {
        let line = std::mem::take(&mut self.line);
        let read = self.line(&line, out);
        self.line = line;
        self.line.clear();
        read
    }

    fn end(&mut self, out: &mut Vec<Event>) -> Result<(), ModelError> {
        if !self.line.is_empty() {
            self.take_line(out)?;
        }
        // An event the stream did not close with a blank line still counts.
        self.line(b"", out)
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<Event>) -> Result<(), ModelError> {
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                out.push(Event {
                    kind: self.kind.take(),
                    data,
                });
            }
            self.kind = None;
            return Ok(());
        }
        let line = std::str::from_utf8(line)
            .map_err(|_| ModelError::Malformed("the stream is not UTF-8 text".into()))?;
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                let data = match &mut self.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                        data
                    }
                    None => self.data.insert(value.to_owned()),
                };
                if data.len() > MAX_STREAM_BYTES {
                    return Err(too_large());
                }
            }
            "event" => self.kind = Some(value.to_owned()),
            _ => {}
        }
        Ok(())
    }
}

/// The bytes of text and arguments a streamed reply has grown to, refused past
/// [`MAX_STREAM_BYTES`].
#[derive(Debug, Default)]
pub(crate) struct Budget {
    spent: usize,
}

impl Budget {
    /// Counts `bytes` more; too large once past the limit.
    pub(crate) fn spend(&mut self, bytes: usize) -> Result<(), ModelError> {
        self.spent = self.spent.saturating_add(bytes);
        if self.spent > MAX_STREAM_BYTES {
            return Err(too_large());
        }
        Ok(())
    }
}

pub(crate) fn too_large() -> ModelError {
    ModelError::Malformed(format!(
        "the streamed answer is larger than {MAX_STREAM_BYTES} bytes"
    ))
}

/// A failure the provider reported after its stream began (with its message, when it gave
/// one): the reply is lost, as when the stream breaks off.
#[cfg(any(feature = "openai", feature = "gemini"))]
pub(crate) fn mid_stream_error(message: Option<&str>) -> ModelError {
    ModelError::Unavailable(format!(
        "the provider reported an error mid-stream: {}",
        message.unwrap_or("no message")
    ))
}

/// Feeds `pieces` to an `A` one by one, then ends the stream: the deltas, and how it ended.
#[cfg(test)]
pub(crate) fn parse_pieces<A: Assemble + Default>(
    pieces: &[&str],
) -> (Vec<ChatDelta>, Result<(), ModelError>) {
    feed::<A>(pieces.iter().map(|piece| piece.as_bytes()))
}

/// [`parse_pieces`] with `text` split at every byte, so every boundary case is crossed.
#[cfg(test)]
pub(crate) fn parse_bytewise<A: Assemble + Default>(
    text: &str,
) -> (Vec<ChatDelta>, Result<(), ModelError>) {
    feed::<A>(text.as_bytes().iter().map(std::slice::from_ref))
}

#[cfg(test)]
fn feed<'b, A: Assemble + Default>(
    pieces: impl IntoIterator<Item = &'b [u8]>,
) -> (Vec<ChatDelta>, Result<(), ModelError>) {
    let mut parser = SseParser::<A>::default();
    let mut out = Vec::new();
    for piece in pieces {
        match parser.push(piece, &mut out) {
            Ok(true) => return (out, Ok(())),
            Ok(false) => {}
            Err(error) => return (out, Err(error)),
        }
    }
    let end = parser.end(&mut out);
    (out, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out each event's data as text.
    #[derive(Debug, Default)]
    struct Echo;

    impl Assemble for Echo {
        fn event(&mut self, event: &Event, out: &mut Vec<ChatDelta>) -> Result<bool, ModelError> {
            out.push(ChatDelta::Text(event.data.clone()));
            Ok(false)
        }

        fn end(&mut self, _: &mut Vec<ChatDelta>) -> Result<(), ModelError> {
            Ok(())
        }
    }

    /// Line endings of every kind, comments, fields without a space, several `data:` lines,
    /// and a last event the stream does not close: the same events, whole or split at every
    /// byte.
    #[test]
    fn events_are_read_alike_whatever_the_pieces() {
        let stream = concat!(
            "event: message\r\n",
            "data: first,\r\n",
            "data:  second line\r\n\r\n",
            ":comment\r",
            "id: 7\r",
            "data:{}\r\r",
            "data: last",
        );
        let expected = vec![
            ChatDelta::Text("first,\n second line".into()),
            ChatDelta::Text("{}".into()),
            ChatDelta::Text("last".into()),
        ];
        assert_eq!(parse_pieces::<Echo>(&[stream]), (expected.clone(), Ok(())));
        assert_eq!(parse_bytewise::<Echo>(stream), (expected, Ok(())));
    }

    #[test]
    fn an_endless_line_is_refused() {
        let mut parser = SseParser::<Echo>::default();
        let block = vec![b'x'; 1024 * 1024];
        let mut result = Ok(false);
        for _ in 0..40 {
            result = parser.push(&block, &mut Vec::new());
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(too_large()));
    }

    #[test]
    fn a_stream_that_is_not_utf8_is_malformed() {
        let result = SseParser::<Echo>::default().push(b"data: \xff\xfe\n\n", &mut Vec::new());
        assert_eq!(
            result,
            Err(ModelError::Malformed("the stream is not UTF-8 text".into()))
        );
    }
}
