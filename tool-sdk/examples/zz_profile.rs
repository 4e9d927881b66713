use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use tool_sdk::{tool, Tool, ToolContext, ToolRegistry};
/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 { a + b }
#[derive(serde::Deserialize)]
struct AddArgs { a: i64, b: i64 }
fn run<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop { if let Poll::Ready(o) = future.as_mut().poll(&mut context) { return o; } }
}
#[inline(never)]
fn hand(s: &str) -> String { let a: AddArgs = serde_json::from_str(s).unwrap(); serde_json::to_string(&add(a.a, a.b)).unwrap() }
#[inline(never)]
fn direct(s: &str) -> String { run(AddTool.call(s, ToolContext::new())).unwrap().into_content() }
#[inline(never)]
fn reg(r: &ToolRegistry, s: &str) -> String { run(r.call("add", s)).unwrap().into_content() }
fn main() {
    let mut r = ToolRegistry::new(); r.register(AddTool).unwrap();
    let which = std::env::args().nth(1).unwrap();
    println!("result size {}", std::mem::size_of::<tool_sdk::ToolResult>());
    for _ in 0..100_000 {
        let s = black_box(r#"{"a": 40, "b": 2}"#);
        let out = match which.as_str() { "hand" => hand(s), "direct" => direct(s), _ => reg(&r, s) };
        black_box(out);
    }
}
