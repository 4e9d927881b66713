//! What the page answers at the HTTP level, to any client: its security headers, and who it
//! refuses.

use std::sync::Arc;

use tool_sdk::approvals::ApprovalPage;
use tool_sdk::run::{CancellationToken, ToolLoop};
use tool_sdk::store::InMemoryChatMemory;
use tool_sdk::{ScriptedModel, ToolRegistry};

use super::desk::{serve, Desk};

/// `GET url` with `headers`: the status line and headers, and the body.
async fn get(url: &str, headers: &[(&str, &str)]) -> (String, String) {
    let mut command = tokio::process::Command::new("curl");
    command.args(["-s", "-i", url]);
    for (name, value) in headers {
        command.args(["-H", &format!("{name}: {value}")]);
    }
    let output = command.output().await.expect("curl runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.to_lowercase(), body.to_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn every_answer_carries_the_security_headers() {
    let desk = Desk::start().await;
    for path in ["", "runs", "page.js", "page.css", "outcome?run=none"] {
        let (head, _) = get(&format!("{}{path}", desk.url), &[]).await;
        assert!(
            head.contains(
                "content-security-policy: default-src 'none'; script-src 'self'; style-src 'self'"
            ),
            "{path}: {head}"
        );
        assert!(head.contains("x-content-type-options: nosniff"), "{path}");
        assert!(head.contains("x-frame-options: deny"), "{path}");
    }
    let (head, _) = get(&desk.url, &[]).await;
    assert!(head.contains("set-cookie: tool_sdk_approvals="), "{head}");
    assert!(head.contains("httponly; samesite=lax"), "{head}");
}

/// What the page answers to `request`, sent as raw bytes: the status line and headers.
async fn raw(url: &str, request: &[u8]) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let address = url.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("the page accepts");
    // The server may answer and close before it has read all of a request too large.
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer).to_lowercase();
    answer
        .split("\r\n\r\n")
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_http_servers_own_answers_carry_the_security_headers_too() {
    let desk = Desk::start().await;
    let many_headers: String = (0..150).map(|n| format!("x-h{n}: v\r\n")).collect();
    let long_uri = format!("/{}", "a".repeat(70_000));
    let cases = [
        ("400", b"NOT HTTP AT ALL\r\n\r\n".to_vec()),
        (
            "431",
            format!("GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n{many_headers}\r\n").into_bytes(),
        ),
        (
            "414",
            format!("GET {long_uri} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n").into_bytes(),
        ),
    ];
    for (status, request) in cases {
        let head = raw(&desk.url, &request).await;
        assert!(head.starts_with(&format!("http/1.1 {status}")), "{head}");
        assert!(
            head.contains("content-security-policy: default-src 'none'"),
            "{status}: {head}"
        );
        assert!(
            head.contains("x-content-type-options: nosniff"),
            "{status}: {head}"
        );
        assert!(head.contains("x-frame-options: deny"), "{status}: {head}");
        assert!(head.contains("cache-control: no-store"), "{status}: {head}");
    }
    // And the page still answers as before.
    let head = raw(
        &desk.url,
        b"GET /page.css HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n",
    )
    .await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert_eq!(head.matches("content-security-policy").count(), 1, "{head}");
}

/// A form as a browser holding the page's cookie would send it: the cookie, and the CSRF
/// token of the page served with it.
async fn honest_form(url: &str, jar: &std::path::Path) -> String {
    let output = tokio::process::Command::new("curl")
        .args(["-s", "-c"])
        .arg(jar)
        .arg(url)
        .output()
        .await
        .expect("curl runs");
    let page = String::from_utf8_lossy(&output.stdout);
    let token = page
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the page carries a CSRF token");
    format!("csrf={token}&run=x&pause=y")
}

/// Posts `form` to the page's `decide` with the cookies of `jar` and `headers`: the status and
/// the body.
async fn post(url: &str, jar: &std::path::Path, form: &str, headers: &[&str]) -> (String, String) {
    let mut command = tokio::process::Command::new("curl");
    command
        .args(["-s", "-w", "\n%{http_code}", "-X", "POST", "-b"])
        .arg(jar);
    for header in headers {
        command.args(["-H", header]);
    }
    let output = command
        .args(["--data", form])
        .arg(format!("{url}decide"))
        .output()
        .await
        .expect("curl runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let (body, status) = text.rsplit_once('\n').unwrap_or((&text, ""));
    (status.to_owned(), body.to_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_from_another_origin_is_refused_even_with_a_good_token() {
    let desk = Desk::start().await;
    desk.ask("book 1 in Originville for 10", "origin").await;
    let jar = std::env::temp_dir().join(format!("approvals-jar-{}", std::process::id()));
    let form = honest_form(&desk.url, &jar).await;
    // The same form from this origin gets past the guard (to be refused for its made-up run).
    let origin = format!("Origin: {}", desk.url.trim_end_matches('/'));
    let (status, body) = post(&desk.url, &jar, &form, &[&origin]).await;
    assert_eq!(status, "404", "{body}");
    let (status, body) = post(&desk.url, &jar, &form, &["Origin: https://evil.example"]).await;
    let _ = std::fs::remove_file(&jar);
    assert_eq!(status, "403");
    assert!(body.contains("sent from another site"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_denial_message_is_limited_by_the_server_too() {
    let desk = Desk::start().await;
    desk.ask("book 1 in Limitville for 10", "limit").await;
    let jar = std::env::temp_dir().join(format!("approvals-jar-limit-{}", std::process::id()));
    let form = honest_form(&desk.url, &jar).await;
    let deny =
        |message: &str| format!("{form}&call.0.key=a&call.0.verdict=deny&call.0.message={message}");
    // Longer than the text area allows: refused, saying why.
    let (status, body) = post(&desk.url, &jar, &deny(&"n".repeat(2_001)), &[]).await;
    assert_eq!(status, "400", "{body}");
    assert!(
        body.contains("more than the 2000 a denial may have"),
        "{body}"
    );
    // A body of almost 2 MB is not read at all.
    let file = std::env::temp_dir().join(format!("approvals-huge-{}", std::process::id()));
    std::fs::write(&file, deny(&"n".repeat(1_900_000))).expect("the body is written");
    let (status, body) = post(&desk.url, &jar, &format!("@{}", file.display()), &[]).await;
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&jar);
    assert_eq!(status, "413", "{body}");
    assert!(body.contains("at most 256 KiB"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_to_another_name_is_refused_by_default() {
    // A site whose name an attacker points at 127.0.0.1 reaches the page from this machine,
    // under its own name: refused, whoever asks.
    let desk = Desk::start().await;
    let port = desk
        .url
        .rsplit(':')
        .next()
        .unwrap_or_default()
        .trim_end_matches('/');
    let (head, body) = get(&desk.url, &[("Host", &format!("rebound.example:{port}"))]).await;
    assert!(head.starts_with("http/1.1 403"), "{head}");
    assert!(body.contains("loopback names only"), "{body}");
    let (head, _) = get(&desk.url, &[("Host", &format!("localhost:{port}"))]).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_application_check_decides_who_may_see_the_page() {
    let agent = Arc::new(ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new()));
    let page =
        ApprovalPage::new(agent, Arc::new(InMemoryChatMemory::new())).with_authorize(|request| {
            match request.headers.get("x-user") {
                Some(user) if user == "ana" => Ok("ana".to_owned()),
                _ => Err("Only Ana decides here.".to_owned()),
            }
        });
    let (url, shutdown) = serve(page).await;
    let (head, body) = get(&url, &[]).await;
    assert!(head.starts_with("http/1.1 403"), "{head}");
    assert!(body.contains("Only Ana decides here."), "{body}");
    assert!(
        head.contains("content-security-policy"),
        "refusals are secured too"
    );
    let (head, _) = get(&url, &[("x-user", "ana")]).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_default_check_refuses_a_request_it_cannot_place() {
    // Mounted in an application's router served without connection info, the page cannot
    // tell where a request comes from, and refuses it, saying how to fix that.
    let agent = Arc::new(ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new()));
    let router = ApprovalPage::new(agent, Arc::new(InMemoryChatMemory::new()))
        .router()
        .expect("the router");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!("http://{}/", listener.local_addr().expect("an address"));
    let shutdown = CancellationToken::new();
    let serving = shutdown.clone();
    tokio::spawn(async move {
        axum_serve(listener, router, serving).await;
    });
    let (head, body) = get(&url, &[]).await;
    assert!(head.starts_with("http/1.1 403"), "{head}");
    assert!(
        body.contains("cannot tell where the request came from"),
        "{body}"
    );
    shutdown.cancel();
}

async fn axum_serve(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    stop: CancellationToken,
) {
    let _ = axum::serve(listener, router)
        .with_graceful_shutdown(stop.cancelled_owned())
        .await;
}
