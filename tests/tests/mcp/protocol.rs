//! The MCP server at the JSON-RPC level, written and read line by line over the stdio of the
//! test server (`tests/bin/mcp_test_server.rs`): protocol errors, classified tool errors,
//! a gated call, cancellation, and clients that leave in the middle of a call.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_test_server");
const WAIT: Duration = Duration::from_secs(20);

/// A server process and the lines it writes, read on a thread so that no read can hang the
/// test. The thread stops after `max_lines` lines (dropping its end of the pipe).
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
}

impl Session {
    fn start(max_lines: usize) -> Self {
        Self::start_declaring(max_lines, json!({}))
    }

    /// A session whose client declares `capabilities`.
    fn start_declaring(max_lines: usize, capabilities: Value) -> Self {
        let mut child = Command::new(SERVER)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the test server starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let (send, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            for _ in 0..max_lines {
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        let value = serde_json::from_str(&line).unwrap_or_else(|error| {
                            panic!("the server wrote a line that is not JSON ({error}): {line}")
                        });
                        if send.send(value).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let mut session = Self {
            child,
            stdin,
            lines,
        };
        session.initialize(capabilities);
        session
    }

    fn send_raw(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .expect("the server reads its stdin");
    }

    fn send(&mut self, message: Value) {
        self.send_raw(&message.to_string());
    }

    fn next(&self) -> Value {
        self.lines
            .recv_timeout(WAIT)
            .expect("the server answers within 20 s")
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.next();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    fn call(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        let answer = self.request(
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        );
        answer["result"].clone()
    }

    fn initialize(&mut self, capabilities: Value) {
        let answer = self.request(
            0,
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": capabilities,
                "clientInfo": {"name": "raw-test-client", "version": "0.0.1"}
            }),
        );
        assert_eq!(
            answer["result"]["serverInfo"],
            json!({"name": "mcp-test-server", "version": "9.9.9"}),
            "{answer}"
        );
        assert_eq!(answer["result"]["protocolVersion"], "2025-06-18");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    /// Closes the server's stdin, as a client that leaves does.
    fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Waits for the process to end on its own; its status and standard error.
    fn wait_exit(mut self) -> (ExitStatus, String, Duration) {
        let started = Instant::now();
        loop {
            match self.child.try_wait().expect("the process can be waited on") {
                Some(status) => {
                    let mut stderr = String::new();
                    if let Some(mut pipe) = self.child.stderr.take() {
                        let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
                    }
                    return (status, stderr, started.elapsed());
                }
                None if started.elapsed() > WAIT => {
                    let _ = self.child.kill();
                    panic!("the server did not exit within 20 s of its client leaving");
                }
                None => thread::sleep(Duration::from_millis(20)),
            }
        }
    }
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn unknown_methods_get_method_not_found() {
    let mut session = Session::start(usize::MAX);
    let answer = session.request(1, "tools/frobnicate", json!({}));
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        "method not found: `tools/frobnicate`"
    );
    // Still serving.
    let answer = session.request(2, "tools/list", json!({}));
    assert_eq!(answer["result"]["tools"].as_array().map(Vec::len), Some(14));
}

#[test]
fn malformed_messages_get_json_rpc_errors() {
    let mut session = Session::start(usize::MAX);
    // Not JSON: a parse error, with no id to answer to.
    session.send_raw("this is not json {");
    let answer = session.next();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    // Not even UTF-8.
    session.send_bytes(b"{\"jsonrpc\": \"2.0\", \"id\": \"\xff\xfe\"}\n");
    let answer = session.next();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    // Blank lines are nothing at all.
    session.send_raw("");
    // JSON, but not a JSON-RPC message.
    session.send_raw(r#"{"jsonrpc": "2.0", "id": 3, "method": 42}"#);
    let answer = session.next();
    assert_invalid_request(&answer);
    session.send_raw(r#"[1, 2, 3]"#);
    let answer = session.next();
    assert_invalid_request(&answer);
    // `tools/call` without its parameters.
    session.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call"}));
    let answer = session.next();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        "the parameters of `tools/call` are missing or malformed"
    );
    // The server still serves.
    let result = session.call(5, "divide", json!({"a": 1, "b": 4}));
    assert_eq!(result["structuredContent"], json!({"result": 0.25}));
}

/// A JSON-RPC 2.0 `-32600` answer: an `id` member, `null` when the request's could not be
/// read.
fn assert_invalid_request(answer: &Value) {
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert_eq!(answer.get("id"), Some(&Value::Null), "{answer}");
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
}

/// The default line limit, the same as the HTTP transport's body limit.
const LINE_LIMIT: usize = 4 * 1024 * 1024;

/// A `tools/call` of `divide` whose line is `padding` bytes longer than the smallest one.
fn padded_call(id: u64, padding: usize) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "divide", "arguments": {"a": 1, "b": 2, "pad": "x".repeat(padding)}}
    })
    .to_string()
}

#[test]
fn a_line_over_the_limit_is_answered_and_the_next_is_served() {
    let mut session = Session::start(usize::MAX);
    // Over the limit, and over rmcp's own 16 MiB, which drops a line without a word.
    for size in [LINE_LIMIT + 1, 17 * 1024 * 1024] {
        session.send_raw(&padded_call(7, size));
        let answer = session.next();
        assert_invalid_request(&answer);
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(&LINE_LIMIT.to_string()), "{answer}");
        assert_eq!(
            answer["error"]["data"]["maxLineBytes"], LINE_LIMIT,
            "{answer}"
        );
        let result = session.call(8, "divide", json!({"a": 1, "b": 4}));
        assert_eq!(result["structuredContent"], json!({"result": 0.25}));
    }
    // Just under the limit is served.
    let line = padded_call(9, 0);
    session.send_raw(&padded_call(9, LINE_LIMIT - line.len() - 1));
    let answer = session.next();
    assert_eq!(answer["id"], 9, "{answer}");
    assert!(answer.get("result").is_some(), "{answer}");
}

/// The largest resident size the process has had, in bytes (Linux: `VmHWM`).
fn peak_resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("procfs");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    kib * 1024
}

#[test]
fn a_long_unterminated_line_is_discarded_as_it_streams() {
    let mut session = Session::start(usize::MAX);
    let before = peak_resident_bytes(session.child.id());
    let chunk = vec![b'x'; 1024 * 1024];
    for _ in 0..64 {
        session.send_bytes(&chunk);
    }
    session.send_bytes(b"\n");
    let answer = session.next();
    assert_invalid_request(&answer);
    let result = session.call(2, "divide", json!({"a": 1, "b": 4}));
    assert_eq!(result["structuredContent"], json!({"result": 0.25}));
    // 64 MiB went through; at most the limit (and some slack for buffers) stayed.
    let grown = peak_resident_bytes(session.child.id()).saturating_sub(before);
    assert!(
        grown < (LINE_LIMIT + 8 * 1024 * 1024) as u64,
        "the server grew by {grown} bytes"
    );
}

#[test]
fn a_value_nested_too_deep_is_answered_and_the_next_is_served() {
    let mut session = Session::start(usize::MAX);
    let depth = 100_000;
    let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    session.send_raw(&format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"divide","arguments":{{"a":1,"b":2,"deep":{deep}}}}}}}"#
    ));
    let answer = session.next();
    assert_invalid_request(&answer);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("deeper than"), "{answer}");
    let result = session.call(4, "divide", json!({"a": 1, "b": 4}));
    assert_eq!(result["structuredContent"], json!({"result": 0.25}));
}

#[test]
fn tool_failures_are_classified_is_error_results() {
    let mut session = Session::start(usize::MAX);
    let result = session.call(1, "divide", json!({"a": 1, "b": 0}));
    assert_eq!(result["isError"], true);
    assert_eq!(text(&result), "Error: cannot divide by zero");

    // A panic is caught; its message stays inside.
    let result = session.call(2, "boom", json!({}));
    assert_eq!(result["isError"], true);
    assert_eq!(text(&result), "Error: the tool failed unexpectedly.");

    let result = session.call(3, "divide", json!({"a": "one", "b": 2}));
    assert_eq!(result["isError"], true);
    assert!(
        text(&result).starts_with("Error: invalid arguments at `/a`"),
        "{result}"
    );
}

#[test]
fn a_confirmation_policy_refuses_calls_a_client_cannot_ask_about() {
    let mut session = Session::start(usize::MAX);
    let result = session.call(1, "transfer", json!({"to": "ana", "amount": 5000}));
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        text(&result).starts_with(
            "Error: calling `transfer` needs a person's decision, and this MCP client offers \
             no way to ask its user"
        ),
        "{result}"
    );
    let result = session.call(2, "transfer", json!({"to": "ana", "amount": 10}));
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(text(&result), "sent 10 to ana");
}

#[test]
fn a_gated_call_sends_an_elicitation_request_and_runs_when_allowed() {
    let mut session = Session::start_declaring(usize::MAX, json!({"elicitation": {}}));
    session.send(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "transfer", "arguments": {"to": "ana", "amount": 5000}}
    }));
    let asked = session.next();
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert_eq!(
        asked["params"]["message"],
        r#"The assistant wants to call `transfer` with {"to":"ana","amount":5000}. Allow it?"#
    );
    assert_eq!(
        asked["params"]["requestedSchema"]["required"],
        json!(["decision"])
    );
    session.send(json!({
        "jsonrpc": "2.0", "id": asked["id"],
        "result": {"action": "accept", "content": {"decision": "allow"}}
    }));
    let answer = session.next();
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(text(&answer["result"]), "sent 5000 to ana", "{answer}");
    // An answer that is not one is a protocol error, and nothing ran.
    session.send(json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "transfer", "arguments": {"to": "bob", "amount": 5000}}
    }));
    let asked = session.next();
    session.send(json!({
        "jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {}}
    }));
    let answer = session.next();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let made = session.call(3, "transfers_made", json!({}));
    assert_eq!(text(&made), "1");
}

#[test]
fn a_gated_call_whose_arguments_do_not_decode_is_answered_without_asking() {
    // The policy gates amounts over 1,000; `to` is not the string the tool takes. Asked, the
    // person would allow a call that then fails: it is answered with its error at once.
    let mut session = Session::start_declaring(usize::MAX, json!({"elicitation": {}}));
    session.send(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "transfer", "arguments": {"to": 5, "amount": 5000}}
    }));
    let answer = session.next();
    assert_eq!(answer["id"], 1, "asked instead of answered: {answer}");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        text(&answer["result"]).contains("invalid arguments at `/to`"),
        "{answer}"
    );
    let made = session.call(2, "transfers_made", json!({}));
    assert_eq!(text(&made), "0");
}

#[test]
fn progress_goes_out_only_for_a_request_with_a_progress_token_and_before_its_result() {
    let mut session = Session::start(usize::MAX);
    // No token: the result is the next line.
    let result = session.call(1, "countdown", json!({"from": 2}));
    assert_eq!(text(&result), "liftoff");
    session.send(json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {
            "name": "countdown", "arguments": {"from": 2},
            "_meta": {"progressToken": "t-2"}
        }
    }));
    for (done, left) in [(1.0, "1 left"), (2.0, "0 left")] {
        let notification = session.next();
        assert_eq!(
            notification["method"], "notifications/progress",
            "{notification}"
        );
        assert_eq!(
            notification["params"],
            json!({"progressToken": "t-2", "progress": done, "total": 2.0, "message": left}),
            "{notification}"
        );
    }
    let answer = session.next();
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(text(&answer["result"]), "liftoff");
}

#[test]
fn a_cancelled_call_does_not_stop_the_server() {
    let mut session = Session::start(usize::MAX);
    session.send(json!({
        "jsonrpc": "2.0", "id": 10, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"millis": 60000}}
    }));
    session.send(json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 10, "reason": "the user changed their mind"}
    }));
    let started = Instant::now();
    let result = session.call(11, "divide", json!({"a": 9, "b": 3}));
    assert_eq!(text(&result), "3.0");
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// `rmcp` lets calls still running when stdin closes answer for up to 5 s (a client may close
/// its end after its last request and still read), then cancels them.
const DRAIN: Duration = Duration::from_secs(5);

#[test]
fn a_client_closing_stdin_mid_call_ends_the_server_cleanly() {
    let mut session = Session::start(usize::MAX);
    session.send(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"millis": 60000}}
    }));
    session.send(json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"millis": 300}}
    }));
    thread::sleep(Duration::from_millis(100));
    session.close_stdin();
    // The short call still answers after stdin closed; the long one never does.
    let answer = session.next();
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(text(&answer["result"]), "waited 300 ms");
    let (status, stderr, after) = session.wait_exit();
    assert!(status.success(), "exit status {status}; stderr:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("the client closed the session"),
        "serve_stdio returned normally: {stderr}"
    );
    assert!(after < DRAIN + Duration::from_secs(3), "took {after:?}");
}

#[test]
fn a_client_that_dies_mid_call_ends_the_server_cleanly() {
    // The reader stops after the answer to `initialize`: both pipes are closed, as when the
    // client process is killed; the first answer meets a closed pipe.
    let mut session = Session::start(1);
    session.send(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"millis": 100}}
    }));
    session.send(json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"millis": 60000}}
    }));
    thread::sleep(Duration::from_millis(500));
    session.close_stdin();
    let (status, stderr, after) = session.wait_exit();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(status.success(), "exit status {status}; stderr:\n{stderr}");
    assert!(after < DRAIN + Duration::from_secs(3), "took {after:?}");
}

/// Capabilities of a client that takes tasks (the Tasks extension).
fn takes_tasks() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// Polls `tasks/get` for `task` until it leaves `working`, a few seconds at most.
fn settled(session: &mut Session, first_id: u64, task: &Value) -> Value {
    for id in first_id..first_id + 200 {
        let answer = session.request(id, "tasks/get", json!({"taskId": task}));
        if answer["result"]["status"] != "working" {
            return answer["result"].clone();
        }
        thread::sleep(Duration::from_millis(25));
    }
    panic!("task {task} still works")
}

#[test]
fn a_long_running_tool_is_served_as_a_task_to_a_client_that_takes_tasks() {
    let mut session = Session::start_declaring(usize::MAX, takes_tasks());
    let created = session.request(
        1,
        "tools/call",
        json!({"name": "write_report", "arguments": {"pages": 3}}),
    );
    let task = &created["result"];
    assert_eq!(task["resultType"], "task", "{created}");
    assert_eq!(task["status"], "working", "{created}");
    let task_id = task["taskId"].clone();
    let done = settled(&mut session, 2, &task_id);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "a report of 3 pages",
        "{done}"
    );
    // Its progress was its status message.
    assert_eq!(done["statusMessage"], "3 of 3: writing", "{done}");
    // An unknown task is a protocol error.
    let unknown = session.request(900, "tasks/get", json!({"taskId": "no-such-task"}));
    assert!(unknown["error"]["code"].is_i64(), "{unknown}");
}

#[test]
fn a_cancelled_task_cancels_its_tool() {
    let mut session = Session::start_declaring(usize::MAX, takes_tasks());
    let created = session.request(
        1,
        "tools/call",
        json!({"name": "long_wait", "arguments": {}}),
    );
    let task_id = created["result"]["taskId"].clone();
    let cancelled = session.request(2, "tasks/cancel", json!({"taskId": task_id}));
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    let done = settled(&mut session, 3, &task_id);
    assert_eq!(done["status"], "cancelled", "{done}");
    let count = session.call(500, "cancelled_calls", json!({}));
    assert_eq!(text(&count), "1", "the tool saw its token cancelled");
}

#[test]
fn a_client_that_takes_no_tasks_gets_the_result_in_the_call() {
    let mut session = Session::start(usize::MAX);
    let result = session.call(1, "write_report", json!({"pages": 2}));
    assert_eq!(text(&result), "a report of 2 pages", "{result}");
}
