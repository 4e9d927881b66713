//! One tool of an MCP server as a tool of this process.

use std::sync::Arc;

use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{CallToolRequestParams, Tool as RmcpTool};
use rmcp::service::Peer;
use rmcp::RoleClient;
use serde_json::Value;

use super::annotations::options_from;
use super::remote_call::call_remote;
use super::tool_list::ToolList;
use crate::define::{Confirm, Defer, Tool as _};
use crate::register::{CallScope, DynamicTool, RegistryError};

/// Whether a server's `outputSchema` is a JSON Schema (2020-12) that compiles: one that is not
/// is dropped rather than failing the registration of the server's tools.
fn usable_output_schema(schema: &Value) -> bool {
    crate::define::check_json_schema(schema).is_ok()
        && jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(schema)
            .is_ok()
}

/// How the client shapes the tools of its server.
#[derive(Debug, Clone)]
pub(crate) struct Shaping {
    pub(crate) prefix: String,
    pub(crate) confirm_destructive: bool,
    pub(crate) defer: Defer,
}

/// `tool` as a dynamic tool named `name` (see [`names`](super::listing::names)), whose calls
/// go to the server through `peer` under the server's own name, with progress through
/// `dispatcher` (see [`call_remote`]). A call the server does not answer (the session ended,
/// the tool is gone) makes `list` list the server again.
pub(crate) fn remote_tool(
    peer: &Peer<RoleClient>,
    tool: RmcpTool,
    name: String,
    shaping: &Shaping,
    list: &Arc<ToolList>,
    dispatcher: &ProgressDispatcher,
) -> Result<DynamicTool, RegistryError> {
    let Shaping {
        prefix: _,
        confirm_destructive,
        defer,
    } = shaping;
    let description = tool.description.as_deref().unwrap_or_default().to_owned();
    let parameters = Value::Object(tool.input_schema.as_ref().clone());
    let mut options = options_from(tool.annotations.as_ref()).with_defer(*defer);
    if *confirm_destructive && !options.read_only && options.destructive != Some(false) {
        options = options.with_confirm(Confirm::Always);
    }
    let peer = peer.clone();
    let list = Arc::clone(list);
    let dispatcher = dispatcher.clone();
    let remote_name = tool.name.clone();
    let handler = move |arguments: Value, scope: CallScope| {
        let mut request = CallToolRequestParams::new(remote_name.clone());
        // The arguments were validated against the object schema, so they are an object.
        if let Value::Object(arguments) = arguments {
            request = request.with_arguments(arguments);
        }
        call_remote(
            peer.clone(),
            request,
            scope,
            dispatcher.clone(),
            Arc::clone(&list),
        )
    };
    let tool_schema = tool.output_schema;
    let remote = DynamicTool::scoped(name, description, parameters, handler)?.with_options(options);
    Ok(
        match tool_schema.map(|schema| Value::Object(schema.as_ref().clone())) {
            Some(schema) if usable_output_schema(&schema) => remote.with_output_schema(schema),
            Some(_) => {
                tracing::warn!(
                    tool = %remote.definition().name,
                    "the server's output schema is not a valid JSON Schema; the tool is kept without it"
                );
                remote
            }
            None => remote,
        },
    )
}
