//! Expose Rust functions to language models as tools, and run their calls safely.
//!
//! One annotated function gives a tool: `#[tool]` derives, at compile time, its name, its
//! description (from the doc comment), the JSON Schema of its parameters (with serde and
//! schemars, one description per parameter from its `///`), and the adapter that decodes a
//! model's arguments and turns the return value into the text the model sees.
//!
//! ```
//! use tool_sdk::{tool, ToolRegistry};
//!
//! /// Converts a temperature from Celsius to Fahrenheit.
//! #[tool]
//! fn to_fahrenheit(
//!     /// Degrees Celsius.
//!     celsius: f64,
//! ) -> f64 {
//!     celsius * 9.0 / 5.0 + 32.0
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let mut registry = ToolRegistry::new();
//! registry.register(ToFahrenheitTool).unwrap();
//!
//! let definition = registry.definitions().next().unwrap();
//! assert_eq!(definition.parameters["properties"]["celsius"]["description"], "Degrees Celsius.");
//!
//! let output = registry.call("to_fahrenheit", r#"{"celsius": 100}"#).await.unwrap();
//! assert_eq!(output.content(), "212.0");
//! # }
//! ```
//!
//! The flow is **define → register → call**:
//!
//! - *Define*: [`tool`] on a free `fn` or `async fn` generates a unit struct named after the
//!   function in `CamelCase` plus `Tool` (`to_fahrenheit` → `ToFahrenheitTool`), documented with
//!   the tool's name, description and parameters, and its arguments struct, `CamelCase` plus
//!   `Args` (`ToFahrenheitArgs`, a field per argument), both as visible as the function; [`tools`]
//!   on an impl block turns its `#[tool]` methods into a [`ToolSet`](define::ToolSet) sharing one instance (each
//!   method's arguments struct is generated beside the impl block, named after the method);
//!   [`DynamicTool`](register::DynamicTool) builds a tool at run time from a JSON Schema and a closure.
//! - *Register*: a [`ToolRegistry`] holds tools by name in insertion order and refuses duplicate
//!   or invalid names.
//! - *Call*: [`ToolRegistry::call`] checks, decodes, dispatches, catches panics, enforces
//!   timeouts, and classifies every failure as a [`ToolError`] that knows whether the model can
//!   fix it and what to tell it.
//!
//! # The `#[tool]` attribute
//!
//! On the function: `name = "..."` (default: the function's name), `description = "..."`
//! (default: the doc comment; one of the two is required), `timeout = "30s"` (units `ms`, `s`,
//! `m`, `h`), `return_direct`, `overrides_built_in`, `skip_permission`,
//! `defer` / `defer = "always" | "auto" | "never"`, `read_only` and `destructive` /
//! `destructive = false` (hints for hosts, such as MCP's tool annotations), and `crate = path`
//! (where `tool_sdk` is, when it is neither a dependency named `tool-sdk` nor renamed in
//! `Cargo.toml`).
//!
//! On a parameter: `///` doc comments describe it; `#[arg(rename = "wire_name")]`,
//! `#[arg(description = "...")]`, `#[arg(default)]` (the type's `Default`) or
//! `#[arg(default = expr)]`; `#[context]` marks a parameter filled from the call's
//! [`ToolContext`] ([`CallId`](define::CallId), [`ToolName`](define::ToolName), [`CancellationToken`](run::CancellationToken), [`State<T>`](define::State)) instead of
//! the model's arguments. `Option<T>` parameters are optional; `&str`, `&[T]` and `&T`
//! parameters are decoded owned and lent to the function.
//!
//! Return values: `String` passes through, `()` becomes `"Success"`, any other `Serialize` type
//! becomes JSON text, and `Result<T, E: Display>` becomes `T`'s output or a
//! [`ToolError::ExecutionFailed`] carrying `E`'s message.
//!
//! The annotated function stays callable as written.
//!
//! # Inline tools (`define_tool!`)
//!
//! [`define_tool!`] defines a tool where you build the session, from a closure that captures
//! its environment. The doc comment is the description, `#[tool(...)]` takes the keys of
//! `#[tool]` (`name` is required here), and the closure's typed parameters are the tool's
//! arguments, with `///`, `#[arg(...)]` and `#[context]` as on a function. The closure may be
//! synchronous, `async move |...|`, or return an `async` block; results follow the same rules.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use tool_sdk::{define::CallId, define_tool, ToolRegistry};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let cart = Arc::new(Mutex::new(Vec::<String>::new()));
//! let add_item = define_tool!(
//!     /// Adds an item to the cart and returns the number of items.
//!     #[tool(name = "add_to_cart", timeout = "5s")]
//!     move |
//!         /// The product to add.
//!         product: String,
//!         /// How many.
//!         #[arg(default = 1)]
//!         quantity: u32,
//!         #[context] call: CallId,
//!     | -> Result<usize, String> {
//!         let mut cart = cart.lock().map_err(|_| "the cart is unavailable")?;
//!         for _ in 0..quantity {
//!             cart.push(product.clone());
//!         }
//!         Ok(cart.len())
//!     }
//! );
//!
//! let mut registry = ToolRegistry::new();
//! registry.register(add_item).unwrap();
//! let output = registry.call("add_to_cart", r#"{"product": "tea", "quantity": 2}"#).await.unwrap();
//! assert_eq!(output.content(), "2");
//! # }
//! ```
//!
//! # Confirmation and compensation options
//!
//! `confirm` marks every call of a tool as needing a person's decision;
//! `confirm = predicate` decides per call, with the typed arguments by reference
//! ([`Tool::needs_confirmation`]). `compensate = action` declares how to roll a successful call
//! back ([`Tool::compensate`]). The action takes:
//!
//! 1. the tool's arguments as **one value**: the arguments struct `#[tool]` generates beside the
//!    function, named after it (`TransferArgs` for `transfer`), with one field per argument
//!    (borrowed parameters decoded into their owned type, `String` for `&str`), visible as the
//!    function is;
//! 2. the tool's output, decoded into the type of this parameter (`String`, `()`, or any
//!    `Deserialize` type the tool returned);
//! 3. then any number of context parameters, filled from the compensation's context as a
//!    tool's `#[context]` parameters are (`CallId`, `State<T>`, `CancellationToken`, ...).
//!
//! It may be `async`, and returns what a tool may return. Why a struct rather than each argument
//! again: an action needs one or two of a tool's arguments, and a struct lets it name those
//! (`args.to`, or `TransferArgs { to, .. }`) while the rest stay in one value, without repeating
//! every parameter and its type, which would have to change with the tool's. A closure written in
//! the attribute gets the struct's type from the macro (`|args, tx: String| ...`), which is how
//! a `define_tool!` action takes it (that struct has no name outside the macro; a function named
//! there by path takes it through a type parameter); inside `#[tools]` the action may be a
//! method of the same impl block (with or without `&self`).
//!
//! ```
//! use tool_sdk::{define::CallId, tool, Tool, ToolContext};
//!
//! /// Transfers money.
//! #[tool(confirm = large, compensate = refund)]
//! fn transfer(to: String, amount: u64) -> Result<String, String> {
//!     Ok(format!("tx-{to}-{amount}"))
//! }
//!
//! fn large(_to: &String, amount: &u64) -> bool {
//!     *amount > 1_000
//! }
//!
//! fn refund(args: TransferArgs, transaction: String, call: CallId) -> Result<(), String> {
//!     println!("refunding {} to {} ({transaction}, call {:?})", args.amount, args.to, call.0);
//!     Ok(())
//! }
//!
//! assert!(TransferTool.needs_confirmation(r#"{"to": "ana", "amount": 5000}"#));
//! assert!(TransferTool.definition().options.compensable);
//! ```
//!
//! # Features
//!
//! The default features are none: the macros, the registry, the loop, the gate, compensation,
//! the in-memory store and the [`ScriptedModel`] build with nothing else. A program names the
//! rest:
//!
//! | feature | gives | brings in |
//! |---|---|---|
//! | `openai` | `model::openai`: OpenAI and OpenAI-compatible servers (Ollama, vLLM, llama.cpp) | reqwest, rustls on ring |
//! | `anthropic` | `model::anthropic`: Anthropic's Messages API | reqwest, rustls on ring |
//! | `gemini` | `model::gemini`: Google's Gemini API | reqwest, rustls on ring |
//! | `sqlite` | `store::SqliteStore`: what survives a restart, in one file | rusqlite, SQLite compiled in |
//! | `postgres` | `store::PostgresStore`: the same, shared by replicas | tokio-postgres, deadpool |
//! | `dynamic` | `register::DynamicTool`: tools from a JSON Schema at run time, validated; in debug builds, results checked against output schemas | jsonschema |
//! | `mcp` | `mcp`: serve a registry over stdio, use an MCP server's tools (`dynamic` included) | rmcp |
//! | `mcp-http` | MCP over streamable HTTP, both ways (`mcp` included) | hyper, reqwest |
//! | `approvals` | `approvals`: the page where a person decides | axum, hyper |
//! | `chrono`, `uuid`, `url` | those crates' types as tool arguments | the crate named |
//!
//! Every feature only adds: turning one on, anywhere in a build, makes no code that compiled
//! without it fail. Choices that must stay a crate's own are not features: the dialects every
//! tool of a package is checked against when it compiles are named in that package's
//! `Cargo.toml` (`[package.metadata.tool-sdk]`, see [`describe`]).
//!
//! A model the environment names ([`model::from_env`]) in a build without its feature is an
//! error that names the feature, never a silent fallback to another model.

// The documentation names items of every feature (the HTTP models, the stores, run-time tools):
// a build without one of them cannot link those names, and shows them as text. The build with
// every feature (the workspace's) checks every link.
#![cfg_attr(
    not(all(
        feature = "dynamic",
        feature = "openai",
        feature = "anthropic",
        feature = "gemini",
        feature = "sqlite"
    )),
    allow(rustdoc::broken_intra_doc_links)
)]

extern crate self as tool_sdk;

// The stages, in dependency order: each uses only those declared before it (a test reads the
// sources and fails on an import that breaks the order). Data flows the same way:
// define → register → describe → model → store → gate → compensate → run, with MCP and the
// approval page at the edge.

// What a tool is: the trait, its definition and schema, its context, its output, its error.
pub mod define;
// Tools by name: the registry, dynamic tools, providers, the name rule, suggestions.
pub mod register;
// What the model is told: each provider's schema dialect, CI checks, tool search.
pub mod describe;
// The chat model seam, messages, call keys, wire formats, the OpenAI-compatible client.
pub mod model;
// What outlives a process: ids, the paused state, the compensation record, the stores.
pub mod store;
// A person's decisions on risky calls: policy, decisions, fingerprints, sealing.
pub mod gate;
// Rolling back what succeeded: the one rollback engine.
pub mod compensate;
// The loop: rounds, options, streaming, events, resume, recovery.
pub mod run;
// Serve a registry over MCP, and use an MCP server's tools.
#[cfg(feature = "mcp")]
pub mod mcp;
// A page where a person decides on paused runs, in a browser.
#[cfg(feature = "approvals")]
pub mod approvals;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

// The names a first program needs; everything else is under its stage.
pub use define::{Tool, ToolContext, ToolError, ToolErrorKind, ToolOutput};
pub use model::{AssistantMessage, ChatModel, Message, ScriptedModel, ToolCall};
pub use register::ToolRegistry;
pub use run::{LoopStatus, ToolLoop};

/// Turns a function into a tool. See the [crate documentation](crate#the-tool-attribute).
pub use tool_sdk_macros::tool;

/// Turns the `#[tool]` methods of an impl block into a [`ToolSet`](define::ToolSet).
pub use tool_sdk_macros::tools;

/// Defines a tool inline, from a closure. See [`InlineTool`](define::InlineTool) and the
/// [crate documentation](crate#inline-tools-define_tool).
pub use tool_sdk_macros::define_tool;

/// The README's examples, compiled and run as doc tests so they cannot rot. They use every
/// feature (`mcp` included), which `cargo test --workspace` turns on through the tests package.
#[cfg(all(doctest, feature = "mcp"))]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// The code of `docs/`, compiled and run as doc tests like the README's.
#[cfg(all(doctest, feature = "mcp"))]
#[doc = include_str!("../../docs/GUARANTEES.md")]
#[doc = include_str!("../../docs/ARCHITECTURE.md")]
#[doc = include_str!("../../docs/TESTING.md")]
#[doc = include_str!("../../docs/PERFORMANCE.md")]
struct DocsDoctests;
