//! The server's stdio transport: newline-delimited JSON-RPC, every line bounded and every
//! line answered.
//!
//! `rmcp`'s own line transport drops, without a word, a line that is not JSON, a line over
//! its 16 MiB, and a value nested deeper than serde's limit, and answers other bad lines with
//! an error lacking the `id` JSON-RPC 2.0 requires. Here each of them gets the JSON-RPC error
//! the specification prescribes (`id: null`), a long line is dropped as it streams in (memory
//! never holds more than the limit), and the next line is served as usual.

use std::io;

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The longest line read by default: the same as the HTTP transport's largest request body,
/// so that what one transport accepts the other does too.
pub(crate) const DEFAULT_LINE_LIMIT: usize = 4 * 1024 * 1024;

/// How deep a message may nest; serde_json refuses deeper values (its recursion limit of
/// 128, less the one level of its own check).
pub(crate) const MAX_DEPTH: usize = 127;

/// How much of the client's stream is read at a time.
const READ_BUFFER: usize = 64 * 1024;

/// Answers queued for the client, ahead of the writer.
const QUEUE: usize = 64;

/// The transport `rmcp` serves over, and the task writing to the client.
pub(crate) struct LineTransport<R> {
    reader: BufReader<R>,
    /// The line read so far; kept here, since `receive` may be cancelled in the middle.
    line: Vec<u8>,
    limit: usize,
    /// Dropping the rest of a line over the limit, up to its end.
    discarding: bool,
    /// An answer of the transport's own, not yet queued for the client.
    pending: Option<String>,
    out: mpsc::Sender<String>,
}

/// The task that owns the client's output.
pub(crate) struct Writer(JoinHandle<()>);

impl Writer {
    /// Waits until everything queued has reached the client (or the client is gone). Ends
    /// once the transport and every send it started are dropped.
    pub(crate) async fn finish(self) {
        let _ = self.0.await;
    }
}

/// A transport reading `reader` with lines of at most `limit` bytes and writing `writer`.
pub(crate) fn transport<R, W>(reader: R, writer: W, limit: usize) -> (LineTransport<R>, Writer)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (out, mut queued) = mpsc::channel::<String>(QUEUE);
    let writing = tokio::spawn(async move {
        let mut writer = writer;
        while let Some(line) = queued.recv().await {
            let written = async {
                writer.write_all(line.as_bytes()).await?;
                writer.write_all(b"\n").await?;
                writer.flush().await
            };
            if written.await.is_err() {
                break;
            }
        }
    });
    let transport = LineTransport {
        reader: BufReader::with_capacity(READ_BUFFER, reader),
        line: Vec::new(),
        limit,
        discarding: false,
        pending: None,
        out,
    };
    (transport, Writer(writing))
}

/// What one line read from the client is.
#[derive(Debug)]
enum Incoming {
    Message(Box<ClientJsonRpcMessage>),
    /// Nothing to do: a blank line, or a notification this server cannot read (JSON-RPC
    /// forbids answering a notification).
    Nothing,
    /// A line answered by the transport itself, with this.
    Refused(String),
}

/// One bounded read.
enum LineRead {
    /// A whole line is in `line` (the last one may lack its line break).
    Line,
    /// The line was over the limit; what was read of it is gone.
    TooLong,
    /// The client closed its end, or reading failed.
    End,
}

impl<R: AsyncRead + Send + Unpin> LineTransport<R> {
    /// Reads one line into `self.line`, never holding more than `limit` bytes of it.
    ///
    /// Cancel safe: `fill_buf` takes nothing when dropped, and the copy into `line` and the
    /// matching `consume` happen with no await between them, so a cancelled read resumes
    /// the same line.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let (taken, step) = {
                let available = match self.reader.fill_buf().await {
                    Ok(available) => available,
                    Err(error) => {
                        tracing::debug!(%error, "reading the MCP client failed");
                        return LineRead::End;
                    }
                };
                if available.is_empty() {
                    if self.line.is_empty() || self.discarding {
                        return LineRead::End;
                    }
                    // The client's last line, without its line break.
                    return LineRead::Line;
                }
                let newline = available.iter().position(|byte| *byte == b'\n');
                let take = newline.map_or(available.len(), |at| at + 1);
                let ends = newline.is_some();
                if self.discarding {
                    (take, if ends { Step::Discarded } else { Step::More })
                } else if self.line.len().saturating_add(take) > self.limit.saturating_add(1) {
                    // The line break itself does not count against the limit.
                    self.line.clear();
                    (take, if ends { Step::TooLong } else { Step::Discard })
                } else {
                    self.line.extend_from_slice(&available[..take]);
                    (take, if ends { Step::Line } else { Step::More })
                }
            };
            self.reader.consume(taken);
            match step {
                Step::Line => return LineRead::Line,
                Step::More => {}
                Step::Discarded => {
                    self.discarding = false;
                    return LineRead::TooLong;
                }
                Step::TooLong => return LineRead::TooLong,
                // Answered once the whole line is gone, so that the answer follows it.
                Step::Discard => self.discarding = true,
            }
        }
    }
}

/// What to do with what `fill_buf` gave, once its borrow has ended.
enum Step {
    Line,
    More,
    TooLong,
    Discard,
    Discarded,
}

impl<R: AsyncRead + Send + Unpin + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        async move {
            let line = serde_json::to_string(&item).map_err(io::Error::other)?;
            out.send(line)
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::NotConnected, "the client is gone"))
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if self.pending.is_some() {
                // Reserving is cancel safe: the answer stays pending until it is queued.
                let permit = self.out.reserve().await.ok()?;
                if let Some(answer) = self.pending.take() {
                    permit.send(answer);
                }
            }
            match self.read_line().await {
                LineRead::Line => {}
                LineRead::TooLong => {
                    self.pending = Some(too_long(self.limit));
                    continue;
                }
                LineRead::End => return None,
            }
            let incoming = classify(&self.line);
            self.line.clear();
            match incoming {
                Incoming::Message(message) => return Some(*message),
                Incoming::Nothing => {}
                Incoming::Refused(answer) => self.pending = Some(answer),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Reads one line: a message, nothing, or the answer it gets.
fn classify(line: &[u8]) -> Incoming {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // RFC 8259 lets a parser skip a byte order mark.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Incoming::Nothing;
    }
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(message) => return Incoming::Message(Box::new(message)),
        Err(error) => error,
    };
    if error.is_data() {
        // Valid JSON, within the depth limit: only the shape is wrong.
        if is_notification(line) {
            return Incoming::Nothing;
        }
        return Incoming::Refused(invalid_request(
            "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
            None,
        ));
    }
    if nests_deeper_than(line, MAX_DEPTH) {
        return Incoming::Refused(invalid_request(
            &format!("Invalid Request: the message nests deeper than {MAX_DEPTH} levels"),
            Some(json!({ "maxDepth": MAX_DEPTH })),
        ));
    }
    Incoming::Refused(parse_error())
}

/// Whether `line` (valid JSON) has the form of a notification: an object with a `method`
/// string and no `id`.
fn is_notification(line: &[u8]) -> bool {
    serde_json::from_slice::<Value>(line).is_ok_and(|value| {
        value.get("id").is_none() && value.get("method").is_some_and(Value::is_string)
    })
}

/// Whether arrays and objects in `text` nest deeper than `limit`, strings aside. Counts
/// without parsing, so it works on values no parser would descend into.
fn nests_deeper_than(text: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in text {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The answer to a line that is not JSON (invalid UTF-8 included).
fn parse_error() -> String {
    error_line(-32700, "Parse error: not JSON", None)
}

/// The answer to a line longer than `limit`.
fn too_long(limit: usize) -> String {
    invalid_request(
        &format!("Invalid Request: the line is longer than the limit of {limit} bytes"),
        Some(json!({ "maxLineBytes": limit })),
    )
}

fn invalid_request(message: &str, data: Option<Value>) -> String {
    error_line(-32600, message, data)
}

/// A JSON-RPC 2.0 error answer whose request's id could not be read: `id` is `null`.
fn error_line(code: i64, message: &str, data: Option<Value>) -> String {
    let mut error = json!({ "code": code, "message": message });
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({ "jsonrpc": "2.0", "id": null, "error": error }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn the_depth_limit_is_serde_jsons() {
        // The message itself and `params` take two levels.
        let message = |depth| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}}}}}"#,
                nested(depth)
            )
        };
        assert!(matches!(
            classify(message(MAX_DEPTH - 2).as_bytes()),
            Incoming::Message(_)
        ));
        let Incoming::Refused(answer) = classify(message(MAX_DEPTH - 1).as_bytes()) else {
            panic!("a message one level too deep is refused");
        };
        assert!(answer.contains("deeper than 127 levels"), "{answer}");
    }

    #[test]
    fn depth_is_counted_outside_strings_only() {
        assert!(!nests_deeper_than(br#"["[[[[", "\"[[["]"#, 1));
        assert!(nests_deeper_than(br#"[{"a": []}]"#, 2));
        assert!(!nests_deeper_than(br#"[{"a": []}]"#, 3));
    }

    #[test]
    fn notifications_that_cannot_be_read_are_not_answered() {
        let line = br#"{"jsonrpc":"2.0","method":"$/progress","params":7}"#;
        assert!(matches!(classify(line), Incoming::Nothing));
        let line = br#"{"jsonrpc":"2.0","id":5,"method":7}"#;
        let Incoming::Refused(answer) = classify(line) else {
            panic!("a request of the wrong shape is refused");
        };
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["id"], Value::Null);
        assert_eq!(answer["error"]["code"], -32600);
    }

    #[tokio::test]
    async fn a_long_line_is_dropped_and_the_next_read() {
        let input = format!("{}\n{}\n", "x".repeat(100), r#"{"a":1}"#);
        let (mut transport, _writer) = transport(
            std::io::Cursor::new(input.into_bytes()),
            tokio::io::sink(),
            10,
        );
        assert!(matches!(transport.read_line().await, LineRead::TooLong));
        assert!(matches!(transport.read_line().await, LineRead::Line));
        assert_eq!(transport.line, b"{\"a\":1}\n");
    }

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_is_read() {
        let input = "y".repeat(10) + "\n";
        let (mut transport, _writer) = transport(
            std::io::Cursor::new(input.into_bytes()),
            tokio::io::sink(),
            10,
        );
        assert!(matches!(transport.read_line().await, LineRead::Line));
        assert_eq!(transport.line.len(), 11);
    }
}
