//! A knock on the door: a run that starts waiting is posted to the application's webhook, to a
//! receiver on loopback here, with a link to it on the page; a receiver that fails is tried a
//! bounded number of times and the failure reported; a receiver that does not answer never
//! holds the run.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Notify};
use tool_sdk::approvals::{Webhook, WebhookFailure};
use tool_sdk::gate::{ConfirmationPolicy, Gate};
use tool_sdk::run::{LoopStatus, ToolLoop};
use tool_sdk::store::PausedTurn;
use tool_sdk::{Message, ScriptedModel};
use tool_sdk_tests::booking::{booking_tools, Timeline};
use tool_sdk_tests::replies::calls;

/// A loop whose hotel bookings wait for a person, told through `webhook`.
fn agent(webhook: Webhook) -> ToolLoop {
    ToolLoop::new(
        ScriptedModel::new([calls(&[("c1", "book_hotel", r#"{"reference":"H1"}"#)])]),
        booking_tools(&Timeline::default(), &[]),
    )
    .with_gate(Gate::new(
        ConfirmationPolicy::new().with_confirmed_tool("book_hotel"),
    ))
    .with_observer(webhook)
}

async fn paused(agent: &ToolLoop) -> PausedTurn {
    let mut conversation = vec![Message::user("Book a hotel")];
    match agent.run(&mut conversation).await.status {
        LoopStatus::Paused(turn) => *turn,
        other => panic!("the run waits: {other:?}"),
    }
}

/// A receiver on loopback answering each post with the next of `statuses` (the last one
/// again once they run out), after `hold` is notified when given; the bodies it got.
async fn receiver(
    statuses: Vec<u16>,
    hold: Option<Arc<Notify>>,
) -> (String, mpsc::UnboundedReceiver<Value>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/hook?token=secret",
        listener.local_addr().unwrap()
    );
    let (sent, bodies) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut answered = 0;
        loop {
            let Ok((connection, _)) = listener.accept().await else {
                return;
            };
            let status = statuses[answered.min(statuses.len() - 1)];
            answered += 1;
            let body = read_post(connection, status, hold.clone()).await;
            let _ = sent.send(body);
        }
    });
    (url, bodies)
}

/// Reads one post from `connection`, answers `status` (once `hold` is notified, if given);
/// its JSON body.
async fn read_post(mut connection: TcpStream, status: u16, hold: Option<Arc<Notify>>) -> Value {
    let mut request = Vec::new();
    let mut buffer = [0u8; 4096];
    let body = loop {
        let read = connection.read(&mut buffer).await.unwrap();
        assert!(read > 0, "the post ended early");
        request.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&request);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = head
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse().ok())?
                })
                .unwrap_or(0);
            if body.len() >= length {
                assert!(head.starts_with("POST /hook?token=secret "), "{head}");
                break body[..length].to_owned();
            }
        }
    };
    if let Some(hold) = hold {
        hold.notified().await;
    }
    let answer = format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    let _ = connection.write_all(answer.as_bytes()).await;
    serde_json::from_str(&body).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_waiting_run_is_posted_with_its_calls_and_a_link_to_it() {
    // The first post meets a 503, the second gets through.
    let (url, mut bodies) = receiver(vec![503, 204], None).await;
    let failures = Arc::new(Mutex::new(Vec::<WebhookFailure>::new()));
    let told = Arc::clone(&failures);
    let webhook = Webhook::new(&url)
        .unwrap()
        .with_page("http://127.0.0.1:8080/")
        .with_on_failure(move |failure| told.lock().unwrap().push(failure.clone()));
    let turn = paused(&agent(webhook)).await;
    for _ in 0..2 {
        let body = bodies.recv().await.expect("a post");
        assert_eq!(body["event"], "run.paused");
        assert_eq!(body["run"], turn.id().as_str());
        assert_eq!(body["pause"], turn.pause().as_str());
        assert_eq!(body["awaiting"][0]["key"], "c1");
        assert_eq!(body["awaiting"][0]["tool"], "book_hotel");
        assert_eq!(
            body["link"],
            format!("http://127.0.0.1:8080/#run-{}", turn.id().as_str())
        );
    }
    // Given time to report, had it failed.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        failures.lock().unwrap().is_empty(),
        "the second post got through"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_receiver_that_keeps_failing_is_tried_a_bounded_number_of_times_and_reported() {
    for (statuses, attempts, said) in [
        (vec![503], 2, "503"),
        // Any other status is final: tried once.
        (vec![400], 1, "400"),
    ] {
        let (url, mut bodies) = receiver(statuses, None).await;
        let (report, mut reported) = mpsc::unbounded_channel();
        let webhook = Webhook::new(&url)
            .unwrap()
            .with_attempts(2)
            .with_on_failure(move |failure| {
                let _ = report.send(failure.clone());
            });
        let turn = paused(&agent(webhook)).await;
        let failure = reported.recv().await.expect("the failure is reported");
        assert_eq!(failure.run, turn.id().as_str());
        assert_eq!(failure.attempts, attempts);
        assert!(failure.reason.contains(said), "{}", failure.reason);
        assert!(
            !failure.reason.contains("secret"),
            "the URL's token is not reported: {}",
            failure.reason
        );
        let mut posts = 0;
        while bodies.try_recv().is_ok() {
            posts += 1;
        }
        assert_eq!(posts, attempts);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_receiver_that_does_not_answer_never_holds_the_run() {
    let hold = Arc::new(Notify::new());
    let (url, mut bodies) = receiver(vec![204], Some(Arc::clone(&hold))).await;
    let failures = Arc::new(Mutex::new(Vec::<WebhookFailure>::new()));
    let told = Arc::clone(&failures);
    // Were the run to wait for the post, it would return only once both attempts had timed
    // out, reported as a failure.
    let webhook = Webhook::new(&url)
        .unwrap()
        .with_timeout(Duration::from_secs(30))
        .unwrap()
        .with_attempts(2)
        .with_on_failure(move |failure| told.lock().unwrap().push(failure.clone()));
    let turn = paused(&agent(webhook)).await;
    assert!(
        failures.lock().unwrap().is_empty(),
        "the run returned without waiting for the receiver"
    );
    // Then the receiver answers, and the post got through.
    hold.notify_one();
    let body = bodies.recv().await.expect("a post");
    assert_eq!(body["run"], turn.id().as_str());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(failures.lock().unwrap().is_empty());
}
