"""A small MCP server written with the Python SDK's high-level server (FastMCP, called
MCPServer since mcp 2), for the tests of tool-sdk's MCP client. Serves over stdio, or over
streamable HTTP at http://127.0.0.1:PORT/mcp with `--http PORT`."""

import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer(name="py-inventory", version="0.4.2", log_level="WARNING")

STOCK = {"apple": 12, "pear": 0}


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def stock(item: str) -> int:
    """How many of an item are in stock."""
    if item not in STOCK:
        # A failure the model should read (any other exception's text stays on the server).
        raise ToolError(f"unknown item {item!r}")
    return STOCK[item]


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def restock(item: str, count: int) -> str:
    """Adds items to the stock."""
    STOCK[item] = STOCK.get(item, 0) + count
    return f"{item}: {STOCK[item]} in stock"


@server.tool()
def echo(text: str, times: int = 1) -> dict:
    """Repeats a text."""
    return {"echo": " ".join([text] * times)}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
