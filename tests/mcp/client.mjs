// Drives an MCP server with the TypeScript SDK's client (over stdio or streamable HTTP) and
// prints what it saw, as JSON, in the form of tests/mcp/client.py, for the Rust tests to check
// (`parsed` naming, per content block, the SDK schema it parses as).
//
//     node client.mjs [--answer ANSWER_JSON] CALLS_JSON SERVER_COMMAND [ARGS...]
//     node client.mjs [--answer ANSWER_JSON] CALLS_JSON http://HOST:PORT/PATH
//
// With --answer, the client declares form elicitation and answers every elicitation request
// with ANSWER_JSON (an ElicitResult), printing each request under `asked`.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  AudioContentSchema,
  ElicitRequestSchema,
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

let argv = process.argv.slice(2);
let answer = null;
if (argv[0] === "--answer") {
  answer = JSON.parse(argv[1]);
  argv = argv.slice(2);
}
const [callsJson, command, ...args] = argv;
const overHttp = command.startsWith("http://") || command.startsWith("https://");
const transport = overHttp
  ? new StreamableHTTPClientTransport(new URL(command))
  : new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client(
  { name: "ts-sdk-test-client", version: "1.0.0" },
  answer === null ? {} : { capabilities: { elicitation: { form: {} } } },
);
const asked = [];
if (answer !== null) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return answer;
  });
}
await client.connect(transport);
const listed = await client.listTools();
const calls = [];
for (const call of JSON.parse(callsJson)) {
  try {
    const progress = [];
    const onprogress = (update) =>
      progress.push([update.progress, update.total ?? null, update.message ?? null]);
    const result = await client.callTool(
      { name: call.name, arguments: call.arguments ?? {} },
      undefined,
      { onprogress },
    );
    const seen = { result, parsed: (result.content ?? []).map(parsed) };
    if (progress.length > 0) seen.progress = progress;
    calls.push(seen);
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
    asked,
  }),
);
if (overHttp) {
  // Ends the session with a DELETE, as an application closing cleanly does.
  await transport.terminateSession();
}
await client.close();
