//! One plain HTTP/1.1 request to a test server's own endpoints (what it recorded, a reset), so
//! that the tests reach them without an HTTP client of their own.

use std::io::{Read as _, Write as _};

/// The body of the server at `base_url` (`http://HOST:PORT/...`) answering `method path` with
/// no body; any status other than 200 fails the test.
pub fn request(base_url: &str, method: &str, path: &str) -> String {
    let authority = base_url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .expect("the server's URL is http://HOST:PORT/...");
    let mut stream = std::net::TcpStream::connect(authority).expect("the server is up");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .expect("the request is written");
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("the answer is read");
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.lines().next().unwrap_or_default();
    assert!(
        matches!(status.split(' ').nth(1), Some("200")),
        "{method} {path}: {head}"
    );
    body.to_owned()
}
