//! The connection of a page served by [`bind`](super::ApprovalPage::bind): every answer on it
//! carries the security headers, hyper's own included.
//!
//! hyper answers some requests itself, before any layer of ours sees them: a request it cannot
//! parse (400), a URI too long (414), headers too many or too large (431). Its answer has no
//! way in for a header, so the connection adds them as the answer's head is written. The page
//! serves one request per connection (see [`serve`](super::serve)), so the first head written
//! is the one answer's; an interim `100 Continue` passes as it is, and the answer after it is
//! read the same way. A head that carries the headers already (every answer of the page's
//! router does) passes unchanged.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::guard::SECURITY_HEADERS;

/// The longest answer head held back to be read: hyper's own are a few dozen bytes, the page's
/// a few hundred. Past it the bytes go out as they are.
const LONGEST_HEAD: usize = 16 * 1024;

/// A connection whose answers' heads get the security headers they lack.
#[derive(Debug)]
pub(super) struct SecuredIo<T> {
    inner: T,
    state: State,
}

#[derive(Debug)]
enum State {
    /// An answer's head is being written: the bytes so far, held back.
    Head(Vec<u8>),
    /// Bytes to write before anything else, from `at` on; then `next`.
    Sending {
        bytes: Vec<u8>,
        at: usize,
        head_next: bool,
    },
    /// The answer's head is out: the rest passes as it is.
    Through,
}

impl<T> SecuredIo<T> {
    pub(super) fn new(inner: T) -> Self {
        Self {
            inner,
            state: State::Head(Vec::new()),
        }
    }
}

/// `head` (the bytes of an answer's head and maybe more) with the security headers after its
/// status line, unless it has them; and whether it is an interim (1xx) answer, after which
/// another head comes.
fn secured(mut head: Vec<u8>, end: usize) -> (Vec<u8>, bool) {
    // The status line and the header lines, each with its line break.
    let text = String::from_utf8_lossy(&head[..end + 2]).to_ascii_lowercase();
    let interim = text
        .split(' ')
        .nth(1)
        .is_some_and(|status| status.starts_with('1'));
    let secured_already = text.contains("\r\ncontent-security-policy:");
    if interim || secured_already {
        return (head, interim);
    }
    let Some(line_end) = text.find("\r\n") else {
        return (head, false);
    };
    let mut added = String::new();
    for (name, value) in SECURITY_HEADERS {
        added.push_str(name);
        added.push_str(": ");
        added.push_str(value);
        added.push_str("\r\n");
    }
    let at = line_end + 2;
    head.splice(at..at, added.into_bytes());
    (head, false)
}

fn head_end(bytes: &[u8]) -> Option<usize> {
    bytes.windows(4).position(|w| w == b"\r\n\r\n")
}

impl<T: AsyncWrite + Unpin> SecuredIo<T> {
    /// Writes out what is held back, if anything.
    fn poll_send(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let State::Sending {
            bytes,
            at,
            head_next,
        } = &mut self.state
        {
            if *at < bytes.len() {
                let written = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*at..]))?;
                if written == 0 {
                    return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                }
                *at += written;
            } else {
                self.state = if *head_next {
                    State::Head(Vec::new())
                } else {
                    State::Through
                };
            }
        }
        Poll::Ready(Ok(()))
    }

    /// Sends what a head held back so far, as it is: the stream is flushed or closed before
    /// the head ended, or the head is too long to be an answer's.
    fn release(&mut self) {
        if let State::Head(head) = &mut self.state {
            if !head.is_empty() {
                let bytes = std::mem::take(head);
                self.state = State::Sending {
                    bytes,
                    at: 0,
                    head_next: false,
                };
            }
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for SecuredIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_send(cx))?;
        match &mut this.state {
            State::Through => Pin::new(&mut this.inner).poll_write(cx, buf),
            State::Head(head) => {
                head.extend_from_slice(buf);
                if let Some(end) = head_end(head) {
                    let (bytes, head_next) = secured(std::mem::take(head), end);
                    this.state = State::Sending {
                        bytes,
                        at: 0,
                        head_next,
                    };
                } else if head.len() > LONGEST_HEAD {
                    this.release();
                }
                Poll::Ready(Ok(buf.len()))
            }
            // `poll_send` returns only once nothing is left to send.
            State::Sending { .. } => Poll::Ready(Ok(0)),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_send(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.release();
        ready!(this.poll_send(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for SecuredIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt as _;

    async fn written(pieces: &[&[u8]]) -> String {
        let mut io = SecuredIo::new(Vec::new());
        for piece in pieces {
            io.write_all(piece).await.expect("written");
        }
        io.flush().await.expect("flushed");
        io.shutdown().await.expect("closed");
        String::from_utf8(io.inner).expect("text")
    }

    #[tokio::test]
    async fn a_head_without_the_headers_gets_them_after_its_status_line() {
        let out = written(&[
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n",
        ])
        .await;
        assert!(
            out.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-security-policy: default-src 'none'"),
            "{out}"
        );
        assert!(out.contains("\r\nx-frame-options: DENY\r\n"), "{out}");
        assert!(out.ends_with("\r\ncontent-length: 0\r\n\r\n"), "{out}");
    }

    #[tokio::test]
    async fn a_head_with_them_and_its_body_pass_unchanged_even_in_pieces() {
        let answer = "HTTP/1.1 200 OK\r\nContent-Security-Policy: x\r\ncontent-length: 28\r\n\r\n\
                      HTTP/1.1 400 Bad Request\r\n\r\n";
        let (a, b) = answer.as_bytes().split_at(20);
        assert_eq!(written(&[a, b]).await, answer);
    }

    #[tokio::test]
    async fn after_an_interim_answer_the_next_head_is_read() {
        let out = written(&[
            b"HTTP/1.1 100 Continue\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\n\r\n",
        ])
        .await;
        assert!(
            out.starts_with(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 400 Bad Request\r\ncontent-security-policy:"
            ),
            "{out}"
        );
    }

    #[tokio::test]
    async fn a_head_cut_short_is_sent_as_it_is() {
        assert_eq!(written(&[b"HTTP/1.1 400 Bad"]).await, "HTTP/1.1 400 Bad");
    }
}
