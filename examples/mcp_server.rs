//! An MCP server: the quickstart's tools (the weather, a shared notebook) served to any MCP
//! host (Claude Desktop, an IDE, the MCP inspector), over stdio or streamable HTTP.
//!
//! ```text
//! cargo build --example mcp_server --features mcp-http
//! npx @modelcontextprotocol/inspector --cli target/debug/examples/mcp_server --method tools/list
//!
//! target/debug/examples/mcp_server --http 127.0.0.1:8000 &
//! npx @modelcontextprotocol/inspector --cli http://127.0.0.1:8000/mcp --transport http \
//!     --method tools/list
//! ```
//!
//! Over stdio, a host starts the binary itself and speaks JSON-RPC over its standard input and
//! output; run in a terminal, it waits for a client's `initialize`. Logs go to standard error,
//! never standard output, which belongs to the protocol. With `--http ADDRESS` it listens on
//! that address (port 0 picks a free one) and says where on standard error.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tool_sdk::mcp::McpServer;
use tool_sdk::run::CancellationToken;
use tool_sdk::{tool, tools, ToolRegistry};

/// Gets the current weather for a city.
#[tool(read_only)]
fn get_weather(
    /// The city, such as "Lisbon".
    city: String,
    /// Temperature unit.
    #[arg(default)]
    unit: Unit,
) -> Weather {
    // A real application would call a weather service here.
    let celsius = 18.5;
    let temperature = match unit {
        Unit::Celsius => celsius,
        Unit::Fahrenheit => celsius * 9.0 / 5.0 + 32.0,
    };
    Weather {
        city,
        temperature,
        unit,
        sky: "partly cloudy".into(),
    }
}

/// Temperature unit.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    #[default]
    Celsius,
    Fahrenheit,
}

#[derive(Serialize)]
struct Weather {
    city: String,
    temperature: f64,
    unit: Unit,
    sky: String,
}

/// A shared notebook: its methods are tools that all see the same notes.
#[derive(Default)]
struct Notebook {
    notes: Mutex<Vec<String>>,
}

#[tools]
impl Notebook {
    /// Saves a note and returns how many notes there are.
    #[tool(destructive = false)]
    fn save_note(&self, text: String) -> Result<usize, String> {
        let mut notes = self
            .notes
            .lock()
            .map_err(|_| "the notebook is unavailable")?;
        if text.trim().is_empty() {
            return Err("a note cannot be empty".into());
        }
        notes.push(text);
        Ok(notes.len())
    }

    /// Lists the saved notes.
    #[tool(read_only)]
    async fn list_notes(&self) -> Vec<String> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }

    /// Deletes every note. A person must allow it: over MCP, the host asks its user.
    #[tool(confirm)]
    fn clear_notes(&self) -> Result<String, String> {
        let mut notes = self
            .notes
            .lock()
            .map_err(|_| "the notebook is unavailable")?;
        notes.clear();
        Ok("all notes deleted".into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = ToolRegistry::new();
    registry.register(GetWeatherTool)?;
    registry.register_set(Arc::new(Notebook::default()))?;

    let server = McpServer::builder("tool-sdk-quickstart", env!("CARGO_PKG_VERSION"))
        .with_instructions("Weather by city, and a notebook shared by every call.")
        .build(registry)?;

    let arguments: Vec<String> = std::env::args().skip(1).collect();
    match arguments.as_slice() {
        [] => server.serve_stdio().await?,
        [flag, address] if flag == "--http" => {
            let listener = TcpListener::bind(address.as_str()).await?;
            eprintln!("serving MCP at http://{}/mcp", listener.local_addr()?);
            // Until the process is stopped; cancel the token to end every session and return.
            server
                .serve_http(listener, CancellationToken::new())
                .await?;
        }
        _ => return Err("usage: mcp_server [--http ADDRESS]".into()),
    }
    Ok(())
}
