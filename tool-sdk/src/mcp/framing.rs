//! Lines that are not JSON, answered as JSON-RPC asks (`-32700`, id `null`) before the rest
//! reaches `rmcp`, which skips them without a word. Everything else passes through untouched,
//! in both directions, one whole line at a time.

use serde::de::IgnoredAny;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Room in each in-process pipe; a line longer than this still passes, in pieces.
const PIPE: usize = 64 * 1024;

/// The JSON-RPC answer to a line that is not JSON.
const PARSE_ERROR: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not JSON"}}"#;

/// The filter's ends for `rmcp`, and its tasks.
pub(crate) struct Filtered {
    /// What the protocol reads: the client's JSON lines.
    pub(crate) protocol_in: DuplexStream,
    /// What the protocol writes, on its way to the client.
    pub(crate) protocol_out: DuplexStream,
    /// The tasks moving the lines.
    pub(crate) tasks: Tasks,
}

/// The tasks of a [`Filtered`] pair.
pub(crate) struct Tasks {
    reading: JoinHandle<()>,
    writing: JoinHandle<()>,
}

impl Tasks {
    /// Once the protocol has stopped: stops reading the client and waits until everything
    /// the protocol wrote has reached it.
    pub(crate) async fn drain(self) {
        self.reading.abort();
        let _ = self.writing.await;
    }
}

/// Puts the filter between the client's byte streams and the protocol.
pub(crate) fn filter<R, W>(reader: R, writer: W) -> Filtered
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (protocol_in, mut to_protocol) = tokio::io::duplex(PIPE);
    let (from_protocol, protocol_out) = tokio::io::duplex(PIPE);
    let (lines, mut outgoing) = mpsc::channel::<String>(64);

    // Client → protocol: JSON lines pass; anything else (invalid UTF-8 included) is answered
    // here.
    let answers = lines.clone();
    let reading = tokio::spawn(async move {
        let mut incoming = BufReader::new(reader);
        let mut line = Vec::new();
        loop {
            line.clear();
            match incoming.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            // UTF-8 first: skipping over a string, serde does not look inside it.
            let parses = std::str::from_utf8(&line)
                .is_ok_and(|text| serde_json::from_str::<IgnoredAny>(text).is_ok());
            if !parses {
                if answers.send(PARSE_ERROR.to_owned()).await.is_err() {
                    break;
                }
                continue;
            }
            if !line.ends_with(b"\n") {
                line.push(b'\n');
            }
            if to_protocol.write_all(&line).await.is_err() {
                break;
            }
        }
        // Dropping `to_protocol` tells the protocol the client is gone.
    });

    // Protocol → client: its lines, queued with the parse errors so none interleave.
    tokio::spawn(async move {
        let mut replies = BufReader::new(from_protocol).lines();
        while let Ok(Some(line)) = replies.next_line().await {
            if lines.send(line).await.is_err() {
                break;
            }
        }
    });

    // One writer owns the client's output.
    let writing = tokio::spawn(async move {
        let mut writer = writer;
        while let Some(line) = outgoing.recv().await {
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

    Filtered {
        protocol_in,
        protocol_out,
        tasks: Tasks { reading, writing },
    }
}
