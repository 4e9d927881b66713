//! Helpers of the MCP tests: the Python of `.venv` (with the `mcp` package) and the scripts of
//! `tests/mcp/`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// The Python of the virtual environment `./scripts/test.sh` sets up.
pub fn python() -> String {
    std::env::var("TOOL_SDK_PYTHON").unwrap_or_else(|_| {
        panic!(
            "TOOL_SDK_PYTHON is not set: run ./scripts/test.sh, which installs the `mcp` \
             package in .venv"
        )
    })
}

/// A file of a package in `tests/node_modules/`, which `./scripts/test.sh` installs from
/// `tests/package.json` with `npm ci`.
pub fn node_package(path: &str) -> String {
    let file = format!("{}/node_modules/{path}", env!("CARGO_MANIFEST_DIR"));
    assert!(
        std::path::Path::new(&file).exists(),
        "{file} is missing: run ./scripts/test.sh, which runs `npm ci` in tests/"
    );
    file
}

/// A script of `tests/mcp/`.
pub fn script(name: &str) -> String {
    format!("{}/mcp/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs the reference Python client (`tests/mcp/client.py`, `mcp` 2.x, its `ClientSession`)
/// against `server` (a command line or a URL): it lists the tools and makes `calls`; returns
/// what it printed.
pub fn python_client(calls: &Value, server: &[&str]) -> Value {
    OtherClient::Python {
        python: python(),
        mode: "session",
    }
    .run(calls, server)
}

/// The Python of the virtual environment with the `mcp` 1.x package, which
/// `./scripts/test.sh` sets up beside the one of [`python`].
pub fn python_mcp1() -> String {
    std::env::var("TOOL_SDK_PYTHON_MCP1").unwrap_or_else(|_| {
        panic!(
            "TOOL_SDK_PYTHON_MCP1 is not set: run ./scripts/test.sh, which installs `mcp` 1.x \
             in .venv-mcp1"
        )
    })
}

/// An MCP client of another SDK, driven by a script of `tests/mcp/` that prints what it saw
/// in one JSON form (`serverInfo`, `instructions`, `tools`, `calls`).
#[derive(Debug, Clone)]
pub enum OtherClient {
    /// `tests/mcp/client.py` run by `python` in `mode` (`session`, `auto` or `legacy`).
    Python {
        /// The interpreter, whose `mcp` package is the client.
        python: String,
        /// How the client talks to the server (see the script).
        mode: &'static str,
    },
    /// `tests/mcp/client.mjs`: the TypeScript SDK's client, from `tests/node_modules`.
    TypeScript,
}

impl OtherClient {
    /// Lists the tools of `server` (a command line or a URL) and makes `calls`.
    pub fn run(&self, calls: &Value, server: &[&str]) -> Value {
        self.run_answering(calls, None, server)
    }

    /// As [`run`](Self::run), the client declaring elicitation when `answer` is given and
    /// answering every elicitation request with it (an `ElicitResult`); what it was asked is
    /// under `asked`.
    pub fn run_answering(&self, calls: &Value, answer: Option<&Value>, server: &[&str]) -> Value {
        let mut command = match self {
            Self::Python { python, mode } => {
                let mut command = Command::new(python);
                command.arg(script("client.py")).args(["--mode", mode]);
                command
            }
            Self::TypeScript => {
                node_package("@modelcontextprotocol/sdk/package.json");
                let mut command = Command::new("node");
                command.arg(script("client.mjs"));
                command
            }
        };
        if let Some(answer) = answer {
            command.args(["--answer", &answer.to_string()]);
        }
        let output = command
            .arg(calls.to_string())
            .args(server)
            .output()
            .unwrap_or_else(|error| panic!("{self:?} cannot start: {error}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{self:?} failed ({}):\n{stderr}",
            output.status
        );
        // The SDKs warn when the end of a session gets a status they do not take for success.
        assert!(
            !stderr.contains("Session termination failed"),
            "{self:?} warned:\n{stderr}"
        );
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "{self:?} printed no JSON ({error}):\n{}",
                String::from_utf8_lossy(&output.stdout)
            )
        })
    }
}

/// Every client of another SDK, as each speaks: the Python `mcp` 2.x client on a 2026-07-28
/// session (`auto`) and in its legacy mode, `mcp` 1.x, and the TypeScript SDK's client.
pub fn every_client() -> Vec<OtherClient> {
    vec![
        OtherClient::Python {
            python: python(),
            mode: "auto",
        },
        OtherClient::Python {
            python: python(),
            mode: "legacy",
        },
        OtherClient::Python {
            python: python_mcp1(),
            mode: "session",
        },
        OtherClient::TypeScript,
    ]
}

/// Consumes the server `command` starts: the client and a registry holding its tools.
pub async fn consumed(
    command: tokio::process::Command,
) -> (tool_sdk::mcp::McpClient, tool_sdk::ToolRegistry) {
    let client = tool_sdk::mcp::McpClient::builder()
        .spawn(command)
        .await
        .expect("the server starts and initializes");
    let mut registry = tool_sdk::ToolRegistry::new();
    client
        .register_into(&mut registry)
        .await
        .expect("its tools are added");
    (client, registry)
}

/// A server binary serving MCP over streamable HTTP (`--http 127.0.0.1:0`, a free loopback
/// port), as the `mcp_server` example does; killed on drop.
#[derive(Debug)]
pub struct HttpServer {
    /// The server process.
    pub child: Child,
    /// Where it serves, as it said on standard error (`http://127.0.0.1:PORT/mcp`).
    pub url: String,
}

impl HttpServer {
    /// Runs `command` with `--http 127.0.0.1:0` added, and waits until it says where it
    /// listens (its first line on standard error: `serving MCP at URL`).
    pub fn start(mut command: Command) -> Self {
        let mut child = command
            .args(["--http", "127.0.0.1:0"])
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut line = String::new();
        if let Some(stderr) = child.stderr.take() {
            BufReader::new(stderr)
                .read_line(&mut line)
                .expect("read the server's first line");
        }
        let url = line
            .trim()
            .strip_prefix("serving MCP at ")
            .unwrap_or_else(|| panic!("the server did not say where it listens: {line:?}"))
            .to_owned();
        Self { child, url }
    }

    /// The `host:port` it listens on.
    pub fn address(&self) -> &str {
        self.url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap_or_default()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
