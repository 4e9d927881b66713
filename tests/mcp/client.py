"""Drives an MCP server with the reference Python client (the `mcp` package, 1.x or 2.x, over
stdio or streamable HTTP) and prints what it saw, as JSON, for the Rust tests to check.

    python client.py [--mode MODE] [--answer ANSWER_JSON] CALLS_JSON SERVER_COMMAND [ARGS...]
    python client.py [--mode MODE] [--answer ANSWER_JSON] CALLS_JSON http://HOST:PORT/PATH

MODE is how the client talks to the server:

- `session` (the default; mcp 1.x and 2.x): the low-level `ClientSession` and its
  `initialize` handshake;
- `auto` (mcp 2.x): the high-level `mcp.client.Client` as it comes, which probes the
  2026-07-28 `server/discover` and falls back to the handshake;
- `legacy` (mcp 2.x): `mcp.client.Client(mode="legacy")`, its compatibility mode, which
  forces the handshake.

ANSWER_JSON, when given, makes the client declare elicitation and answer every elicitation
request with it (an `ElicitResult`, such as {"action": "accept", "content": {...}}); each
request it answers is printed under `asked` (its `message` and `requestedSchema`). Without it
the client declares no elicitation.

CALLS_JSON is a list of {"name": ..., "arguments": {...}}. Printed: the server's identity and
instructions, the protocol version spoken, the listed tools and, per call, the result or the
JSON-RPC error, all with the protocol's own field names (camelCase); beside a result,
`parsed`: the SDK type each of its content blocks was read as (`ImageContent`,
`EmbeddedResource/BlobResourceContents`, ...); beside a call that reported progress,
`progress`: each `notifications/progress` it got, as [progress, total, message].
"""

import contextlib
import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

try:  # mcp 2.x
    from mcp import MCPError
except ImportError:  # mcp 1.x
    from mcp import McpError as MCPError

try:
    from mcp.client.streamable_http import streamable_http_client
except ImportError:  # older 1.x
    from mcp.client.streamable_http import streamablehttp_client as streamable_http_client


def wire(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def error_of(error):
    # 2.x carries the code and message itself; 1.x in `.error`.
    data = getattr(error, "error", error)
    return {"code": data.code, "message": data.message}


def server_of(command, args):
    if command.startswith(("http://", "https://")):
        return command
    return StdioServerParameters(command=command, args=args)


@contextlib.asynccontextmanager
async def session_transport(server):
    if isinstance(server, str):
        async with streamable_http_client(server) as streams:
            yield streams[0], streams[1]
    else:
        async with stdio_client(server) as (read, write):
            yield read, write


class Asker:
    """Answers every elicitation request with one answer, remembering what it was asked."""

    def __init__(self, answer):
        self.answer = answer
        self.asked = []

    async def __call__(self, context, params):
        from mcp.types import ElicitResult

        self.asked.append(wire(params))
        return ElicitResult(**self.answer)


def callback_of(asker):
    return {} if asker is None else {"elicitation_callback": asker}


async def with_session(server, calls, asker):
    async with session_transport(server) as (read, write):
        async with ClientSession(read, write, **callback_of(asker)) as session:
            initialized = await session.initialize()
            listed = await session.list_tools()
            outcomes = [await outcome(session, call) for call in calls]
    # 1.x names the fields as the wire does (`serverInfo`).
    info = getattr(initialized, "server_info", None) or getattr(initialized, "serverInfo", None)
    version = getattr(initialized, "protocol_version", None) or initialized.protocolVersion
    return info, initialized.instructions, listed.tools, outcomes, version


async def with_client(server, calls, mode, asker):
    from mcp.client.client import Client

    async with Client(server, mode=mode, **callback_of(asker)) as client:
        listed = await client.list_tools()
        outcomes = [await outcome(client, call) for call in calls]
        return client.server_info, client.instructions, listed.tools, outcomes, client.protocol_version


def parsed(block):
    # What the SDK made of a block, not what the wire said: the test of its media types.
    kind = type(block).__name__
    resource = getattr(block, "resource", None)
    return kind if resource is None else f"{kind}/{type(resource).__name__}"


async def outcome(peer, call):
    progress = []

    async def on_progress(done, total, message):
        progress.append([done, total, message])

    try:
        result = await peer.call_tool(call["name"], call.get("arguments"), progress_callback=on_progress)
        seen = {"result": wire(result), "parsed": [parsed(block) for block in result.content]}
    except MCPError as error:
        seen = {"error": error_of(error)}
    if progress:
        seen["progress"] = progress
    return seen


async def main(mode, answer, calls, command, args):
    server = server_of(command, args)
    asker = None if answer is None else Asker(answer)
    if mode == "session":
        info, instructions, tools, outcomes, version = await with_session(server, calls, asker)
    else:
        info, instructions, tools, outcomes, version = await with_client(server, calls, mode, asker)
    print(
        json.dumps(
            {
                "serverInfo": wire(info) if info is not None else None,
                "protocolVersion": version,
                "instructions": instructions,
                "tools": [wire(tool) for tool in tools],
                "calls": outcomes,
                "asked": [] if asker is None else asker.asked,
            }
        )
    )


if __name__ == "__main__":
    argv = sys.argv[1:]
    mode, answer = "session", None
    while argv[:1] in (["--mode"], ["--answer"]):
        if argv[0] == "--mode":
            mode = argv[1]
        else:
            answer = json.loads(argv[1])
        argv = argv[2:]
    anyio.run(main, mode, answer, json.loads(argv[0]), argv[1], argv[2:])
