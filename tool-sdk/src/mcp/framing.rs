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
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::rejection::{reject, too_long};

/// The longest line read by default: the same as the HTTP transport's largest request body,
/// so that what one transport accepts the other does too.
pub(crate) const DEFAULT_LINE_LIMIT: usize = 4 * 1024 * 1024;

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
    match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(message) => Incoming::Message(Box::new(message)),
        Err(error) => {
            let rejection = reject(line, &error);
            if rejection.notification {
                Incoming::Nothing
            } else {
                Incoming::Refused(rejection.answer)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notifications_that_cannot_be_read_are_not_answered() {
        let line = br#"{"jsonrpc":"2.0","method":"$/progress","params":7}"#;
        assert!(matches!(classify(line), Incoming::Nothing));
        let line = br#"{"jsonrpc":"2.0","id":5,"method":7}"#;
        assert!(matches!(classify(line), Incoming::Refused(_)));
        assert!(matches!(classify(b"  \r\n"), Incoming::Nothing));
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
