//! Stage `mcp`: a registry served over MCP and MCP servers' tools used here, with the clients and
//! servers of other SDKs, over stdio and streamable HTTP.
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod asked;
mod client;
mod clients;
mod conformance;
mod corpus;
mod decisions;
mod everything;
mod http;
mod http_edges;
mod inspector;
mod media;
mod progress;
mod protocol;
mod python;
mod tasks;
mod tool_list;
mod tool_names;
mod typed;
