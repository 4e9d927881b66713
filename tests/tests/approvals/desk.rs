//! A small travel desk for the page's tests: tools that write what they do in a ledger, a
//! model that follows fixed rules, and a page serving on a free loopback port.
//!
//! Tests run at once in one process and share the ledger, so each uses names of its own (a
//! city, a recipient) and reads back only its own entries.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tool_sdk::approvals::ApprovalPage;
use tool_sdk::model::{ChatModel, ChatRequest, ChatResponse, Message, ModelFuture};
use tool_sdk::register::IntoRegistry as _;
use tool_sdk::run::{CancellationToken, Conversation, LoopStatus, ToolLoop};
use tool_sdk::store::{InMemoryChatMemory, PausedTurn, RunId, RunStore, SqliteStore};
use tool_sdk::{tool, AssistantMessage, ToolCall};
use tool_sdk_tests::mcp::node_package;

/// What the tools did, in order, across every test of the binary.
static LEDGER: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn write(entry: String) {
    LEDGER.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
}

/// The ledger's entries that mention `tag`, in order.
pub(crate) fn ledger(tag: &str) -> Vec<String> {
    let ledger = LEDGER.lock().unwrap_or_else(|e| e.into_inner());
    ledger.iter().filter(|e| e.contains(tag)).cloned().collect()
}

/// Books a hotel; cancelled again if a later step fails.
#[tool(confirm, compensate = |_, booking: String| write(format!("cancelled {booking}")))]
fn book_hotel(city: String, nights: u32) -> String {
    write(format!("booked {city}-{nights}N"));
    format!("{city}-{nights}N")
}

/// Charges the company card, whose limit is 400 EUR.
#[tool(confirm)]
fn charge_card(euros: u32, city: String) -> Result<String, String> {
    if euros > 400 {
        return Err(format!(
            "the card declined {euros} EUR: over its 400 EUR limit"
        ));
    }
    write(format!("charged {euros} for {city}"));
    Ok(format!("charged {euros} EUR"))
}

/// Sends an email on the team's behalf.
#[tool(confirm)]
fn send_email(to: String, body: String) -> String {
    write(format!("sent to {to}: {body}"));
    format!("sent to {to}")
}

/// Wires money abroad, which takes the bank a moment.
#[tool(confirm)]
async fn wire(euros: u32, to: String) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    write(format!("wired {euros} to {to}"));
    format!("wired {euros} EUR to {to}")
}

/// Tells the weather where someone is; reads only, so it runs without asking.
#[tool(read_only)]
fn weather(place: String) -> String {
    write(format!("weather for {place}"));
    format!("{place}: 21 °C")
}

/// The desk's model: `book N in CITY for EUROS` books and charges; `wire EUROS to NAME` wires
/// (slowly); `email TO: BODY` looks up
/// the weather and sends; `ghost TO` calls a tool the desk does not have and sends; `trip CITY`
/// looks up the weather, then books a night; after tool results, it reports each (a denial
/// with its message).
struct DeskModel;

impl ChatModel for DeskModel {
    fn chat<'a>(&'a self, request: ChatRequest<'a>) -> ModelFuture<'a> {
        let reply = reply_to(request.messages);
        Box::pin(async move { Ok(ChatResponse::new(reply)) })
    }
}

fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(name, name, arguments.to_string())
}

fn reply_to(messages: &[Message]) -> AssistantMessage {
    // "trip CITY": the weather first (no decision needed), then, once it is read, the hotel.
    let asked = messages.iter().rev().find_map(|message| match message {
        Message::User { content } => Some(content.as_str()),
        _ => None,
    });
    if let (Some(city), Some(Message::Tool(last))) = (
        asked.and_then(|asked| asked.strip_prefix("trip ")),
        messages.last(),
    ) {
        if last.name == "weather" {
            return AssistantMessage::with_tool_calls(vec![call(
                "book_hotel",
                json!({"city": city, "nights": 1}),
            )]);
        }
    }
    if let Some(city) = asked.and_then(|asked| asked.strip_prefix("trip ")) {
        if !matches!(messages.last(), Some(Message::Tool(_))) {
            return AssistantMessage::with_tool_calls(vec![call(
                "weather",
                json!({"place": city}),
            )]);
        }
    }
    let results: Vec<_> = messages
        .iter()
        .rev()
        .map_while(|message| match message {
            Message::Tool(result) => Some(format!("{}: {}", result.name, result.content)),
            _ => None,
        })
        .collect();
    if !results.is_empty() {
        return AssistantMessage::text(results.into_iter().rev().collect::<Vec<_>>().join("\n"));
    }
    let Some(Message::User { content }) = messages.last() else {
        return AssistantMessage::text("nothing to do");
    };
    let words: Vec<&str> = content.split_whitespace().collect();
    match words.as_slice() {
        ["book", nights, "in", city, "for", euros] => AssistantMessage::with_tool_calls(vec![
            call(
                "book_hotel",
                json!({"city": city, "nights": nights.parse::<u32>().unwrap_or(1)}),
            ),
            call(
                "charge_card",
                json!({"euros": euros.parse::<u32>().unwrap_or(0), "city": city}),
            ),
        ]),
        ["wire", euros, "to", to] => AssistantMessage::with_tool_calls(vec![call(
            "wire",
            json!({"euros": euros.parse::<u32>().unwrap_or(0), "to": to}),
        )]),
        ["email", ..] => {
            let (to, body) = content["email ".len()..]
                .split_once(": ")
                .unwrap_or(("nobody", ""));
            AssistantMessage::with_tool_calls(vec![
                call("weather", json!({"place": to})),
                call("send_email", json!({"to": to, "body": body})),
            ])
        }
        // A tool the desk does not have, beside one it has.
        ["ghost", to] => AssistantMessage::with_tool_calls(vec![
            call("summon_spirit", json!({"name": to})),
            call("send_email", json!({"to": to, "body": "boo"})),
        ]),
        _ => AssistantMessage::text("the desk books hotels and sends emails"),
    }
}

/// The page over a desk, serving on a free loopback port until dropped.
pub(crate) struct Desk {
    agent: Arc<ToolLoop>,
    memory: Arc<InMemoryChatMemory>,
    pub(crate) store: Arc<SqliteStore>,
    pub(crate) url: String,
    shutdown: CancellationToken,
}

impl Desk {
    pub(crate) async fn start() -> Self {
        Self::start_with(|agent| agent, |page| page).await
    }

    /// A desk whose loop is set up by `agent` (a budget, a deadline), its page by `page`.
    pub(crate) async fn start_with(
        agent: impl FnOnce(ToolLoop) -> ToolLoop,
        page: impl FnOnce(ApprovalPage) -> ApprovalPage,
    ) -> Self {
        let tools = (
            BookHotelTool,
            ChargeCardTool,
            SendEmailTool,
            WeatherTool,
            WireTool,
        )
            .into_registry()
            .expect("the desk's tools register");
        let store = Arc::new(SqliteStore::open_in_memory().expect("a store"));
        let agent = Arc::new(agent(
            ToolLoop::new(DeskModel, tools).with_store(store.clone()),
        ));
        let memory = Arc::new(InMemoryChatMemory::new());
        let page =
            page(ApprovalPage::new(Arc::clone(&agent), memory.clone()).with_title("Travel desk"));
        let (url, shutdown) = serve(page).await;
        Self {
            agent,
            memory,
            store,
            url,
            shutdown,
        }
    }

    /// Runs `prompt` on the conversation `conversation` until it pauses; the paused turn.
    pub(crate) async fn ask(&self, prompt: &str, conversation: &str) -> PausedTurn {
        let outcome = self
            .agent
            .run(prompt)
            .with_memory(&*self.memory, conversation)
            .await;
        match outcome.status {
            LoopStatus::Paused(turn) => *turn,
            other => panic!("`{prompt}` did not pause: {other:?}"),
        }
    }

    /// Allows every waiting call of `turn`, on the conversation `conversation`, as an
    /// application would (not through the page): what came of it.
    pub(crate) async fn allow(&self, turn: &PausedTurn, conversation: &str) -> LoopStatus {
        let decisions = turn.decide().allow_rest().build().with_decider("ops-bot");
        self.agent
            .resume(Conversation::Owned(Vec::new()), turn.id(), &decisions)
            .with_memory(&*self.memory, conversation)
            .await
            .expect("the decisions fit")
            .status
    }

    /// Another page over the desk's loop and store, as another replica would serve it: it
    /// shares nothing with the first but the store. Its URL, served until the token is
    /// cancelled.
    pub(crate) async fn another_page(&self) -> (String, CancellationToken) {
        serve(ApprovalPage::new(
            Arc::clone(&self.agent),
            self.memory.clone(),
        ))
        .await
    }

    /// Whether `run` still waits for a decision.
    pub(crate) async fn waits(&self, run: &RunId) -> bool {
        let paused = self.store.list_paused(100).await.expect("the store lists");
        paused.iter().any(|paused| paused.turn.id() == run)
    }

    /// The conversation's messages as the memory keeps them.
    pub(crate) async fn conversation(&self, conversation: &str) -> Vec<Message> {
        use tool_sdk::store::ChatMemory as _;
        self.memory
            .load(conversation)
            .await
            .expect("the memory loads")
    }
}

impl Drop for Desk {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Asks `desk` `prompt` on `conversation` once poked: the URL the browser pokes (the `poke`
/// step), answered once the run has paused, and the paused turn.
pub(crate) async fn ask_when_poked(
    desk: &Arc<Desk>,
    prompt: &str,
    conversation: &str,
) -> (String, tokio::task::JoinHandle<PausedTurn>) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let trigger = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let poke = format!("http://{}/", trigger.local_addr().expect("an address"));
    let (desk, prompt, conversation) =
        (Arc::clone(desk), prompt.to_owned(), conversation.to_owned());
    let asked = tokio::spawn(async move {
        let (mut socket, _) = trigger.accept().await.expect("the browser pokes");
        let mut request = [0u8; 1024];
        let _ = socket.read(&mut request).await;
        let turn = desk.ask(&prompt, &conversation).await;
        let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
        socket.write_all(answer).await.expect("the answer is sent");
        turn
    });
    (poke, asked)
}

/// Serves `page` on a free loopback port until the token is cancelled; its URL.
pub(crate) async fn serve(page: ApprovalPage) -> (String, CancellationToken) {
    let page = page.bind(0).await.expect("the page listens");
    let url = page.url().to_owned();
    let shutdown = CancellationToken::new();
    tokio::spawn(page.serve(shutdown.clone()));
    (url, shutdown)
}

/// Runs the browser along `steps` (see `tests/page/browser.mjs`); what it recorded.
pub(crate) async fn browse(steps: Value) -> Value {
    let script = format!("{}/page/browser.mjs", env!("CARGO_MANIFEST_DIR"));
    // The script finds playwright-core in tests/node_modules.
    let _ = node_package("playwright-core/package.json");
    let output = tokio::process::Command::new("node")
        .arg(script)
        .arg(steps.to_string())
        .output()
        .await
        .expect("node runs the browser script");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the browser script failed:\n{printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_str(printed.trim())
        .unwrap_or_else(|error| panic!("the browser script printed no JSON ({error}):\n{printed}"));
    assert_eq!(seen["consoleErrors"], json!([]), "the page's script failed");
    seen
}
