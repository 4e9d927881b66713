// Drives an MCP server with the TypeScript SDK's client (over stdio or streamable HTTP) and
// prints what it saw, as JSON, in the form of tests/mcp/client.py, for the Rust tests to check
// (`parsed` naming, per content block, the SDK schema it parses as).
//
//     node client.mjs CALLS_JSON SERVER_COMMAND [ARGS...]
//     node client.mjs CALLS_JSON http://HOST:PORT/PATH

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  AudioContentSchema,
  BlobResourceContentsSchema,
  EmbeddedResourceSchema,
  ImageContentSchema,
  McpError,
  ResourceLinkSchema,
  TextContentSchema,
  TextResourceContentsSchema,
} from "@modelcontextprotocol/sdk/types.js";

// The SDK's content types, named as the Python SDK names its classes.
const BLOCKS = [
  ["TextContent", TextContentSchema],
  ["ImageContent", ImageContentSchema],
  ["AudioContent", AudioContentSchema],
  ["EmbeddedResource", EmbeddedResourceSchema],
  ["ResourceLink", ResourceLinkSchema],
];
const RESOURCES = [
  ["BlobResourceContents", BlobResourceContentsSchema],
  ["TextResourceContents", TextResourceContentsSchema],
];

function parsedAs(kinds, value) {
  const found = kinds.find(([, schema]) => schema.safeParse(value).success);
  return found ? found[0] : "unknown";
}

function parsed(block) {
  const kind = parsedAs(BLOCKS, block);
  return kind === "EmbeddedResource" ? `${kind}/${parsedAs(RESOURCES, block.resource)}` : kind;
}

const [callsJson, command, ...args] = process.argv.slice(2);
const overHttp = command.startsWith("http://") || command.startsWith("https://");
const transport = overHttp
  ? new StreamableHTTPClientTransport(new URL(command))
  : new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "ts-sdk-test-client", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools();
const calls = [];
for (const call of JSON.parse(callsJson)) {
  try {
    const result = await client.callTool({ name: call.name, arguments: call.arguments ?? {} });
    calls.push({ result, parsed: (result.content ?? []).map(parsed) });
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    calls.push({ error: { code: error.code, message: error.message } });
  }
}
console.log(
  JSON.stringify({
    serverInfo: client.getServerVersion() ?? null,
    instructions: client.getInstructions() ?? null,
    tools: listed.tools,
    calls,
  }),
);
if (overHttp) {
  // Ends the session with a DELETE, as an application closing cleanly does.
  await transport.terminateSession();
}
await client.close();
