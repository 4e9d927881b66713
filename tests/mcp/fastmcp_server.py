"""A small MCP server written with the Python SDK's high-level server (FastMCP, called
MCPServer since mcp 2), for the tests of tool-sdk's MCP client. Serves over stdio, or with
`--http HOST:PORT` over streamable HTTP (port 0 picks a free one), saying
`serving MCP at URL` on the first line of standard error once it listens, as the `mcp_server`
example does."""

import base64
import socket
import sys

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer(name="py-inventory", version="0.4.2", log_level="WARNING")

STOCK = {"apple": 12, "pear": 0}

# A 1x1 PNG: what `chart` draws.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP438AAAAQBAYDFKhhdAAAAAElFTkSuQmCC"
)


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


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def chart(item: str) -> list[str | Image]:
    """Draws the stock of an item."""
    # FastMCP's `Image` helper: an image content block after the text block.
    return [f"Stock of {item}:", Image(data=PIXEL, format="png")]


def serve_http(address):
    import uvicorn

    # Bound here, so that the port is known before anyone connects and no one else takes it.
    host, port = address.rsplit(":", 1)
    listener = socket.socket()
    listener.bind((host, int(port)))
    listener.listen()
    bound_host, bound_port = listener.getsockname()[:2]
    print(f"serving MCP at http://{bound_host}:{bound_port}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        serve_http(sys.argv[2])
    else:
        server.run()
