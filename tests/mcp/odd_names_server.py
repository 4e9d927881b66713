"""An MCP server (the Python SDK's FastMCP) whose tool names MCP allows and the model
providers do not: a dot, a space, 70 characters, and two names that are one after renaming.
Serves over stdio."""

from mcp.server.mcpserver import MCPServer

server = MCPServer(name="odd-names", version="1.0.0", log_level="WARNING")


@server.tool(name="math.multiply")
def multiply(a: int, b: int) -> int:
    """Multiplies two integers."""
    return a * b


@server.tool(name="has space")
def has_space(text: str) -> str:
    """Echoes a text."""
    return text


@server.tool(name="l" * 70)
def long_name() -> str:
    """A tool with a long name."""
    return "long"


@server.tool(name="math.add")
def add_dotted(a: int, b: int) -> int:
    """Adds two integers (dotted name)."""
    return a + b


@server.tool(name="math_add")
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


if __name__ == "__main__":
    server.run()
