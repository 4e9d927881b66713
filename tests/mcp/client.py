"""Drives an MCP server with the reference Python client (the `mcp` package's ClientSession,
over stdio or streamable HTTP) and prints what it saw, as JSON, for the Rust tests to check.

    python client.py CALLS_JSON SERVER_COMMAND [ARGS...]
    python client.py CALLS_JSON http://HOST:PORT/PATH

CALLS_JSON is a list of {"name": ..., "arguments": {...}}. Printed: the server's identity and
instructions, the listed tools and, per call, the result or the JSON-RPC error, all with the
protocol's own field names (camelCase).
"""

import json
import sys

import contextlib

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def wire(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


@contextlib.asynccontextmanager
async def transport(command, args):
    if command.startswith(("http://", "https://")):
        async with streamable_http_client(command) as streams:
            yield streams[0], streams[1]
    else:
        server = StdioServerParameters(command=command, args=args)
        async with stdio_client(server) as (read, write):
            yield read, write


async def main(calls, command, args):
    async with transport(command, args) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            listed = await session.list_tools()
            outcomes = []
            for call in calls:
                try:
                    result = await session.call_tool(call["name"], call.get("arguments"))
                    outcomes.append({"result": wire(result)})
                except MCPError as error:
                    outcomes.append({"error": {"code": error.code, "message": error.message}})
    print(
        json.dumps(
            {
                "serverInfo": wire(initialized.server_info),
                "instructions": initialized.instructions,
                "tools": [wire(tool) for tool in listed.tools],
                "calls": outcomes,
            }
        )
    )


if __name__ == "__main__":
    anyio.run(main, json.loads(sys.argv[1]), sys.argv[2], sys.argv[3:])
