"""Drives the input-request rounds of an MCP server by hand with the reference Python client
(`mcp` 2.x on a 2026-07-28 session), to try what an honest client never sends: a forged,
replayed, expired or other call's request state. Prints what it saw, as JSON.

    python request_state.py CALL_JSON STEPS_JSON SERVER_COMMAND [ARGS...]

CALL_JSON is the gated call, {"name": ..., "arguments": {...}}: it is made first, without a
state, and its `InputRequiredResult` printed under `first`. STEPS_JSON is a list of steps,
each printed under `steps` with the result or the JSON-RPC error it got:

- {"retry": STATE, "answer": ANSWER, "arguments": {...}}: the call again, with STATE, one of
  "issued" (the state as the server issued it), "forged" (one character of it changed) or
  "none"; ANSWER (an `ElicitResult`, or null for no `inputResponses`); `arguments` instead of
  the call's own when given;
- {"sleep": SECONDS};
- {"call": {"name": ..., "arguments": {...}}}: another call, as an honest client makes it.

A retry or call step with "on": N goes to replica N instead: the script starts as many server
processes (each SERVER_COMMAND [ARGS...], replica 0 the one asked first) as the steps name,
as replicas behind a load balancer sharing their settings. `{replica}` in an argument becomes
the replica's number, for servers that differ (another server sharing the key).
"""

import contextlib
import json
import sys

import anyio
from mcp import MCPError, StdioServerParameters
from mcp.client.client import Client
from mcp.types import ElicitResult, InputRequiredResult


def wire(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def forged(state):
    # A base64url character swapped for another: still well-formed, no longer what was sealed.
    index = len(state) // 3
    swapped = "A" if state[index] != "A" else "B"
    return state[:index] + swapped + state[index + 1 :]


async def never_asked(context, params):
    # Declares elicitation, so that the server asks; this script answers the rounds itself.
    return ElicitResult(action="cancel")


async def outcome(call):
    try:
        result = await call
    except MCPError as error:
        return {"error": {"code": error.code, "message": error.message}}
    return {"result": wire(result), "inputRequired": isinstance(result, InputRequiredResult)}


async def main(call, steps, command, args):
    replicas = 1 + max((step.get("on", 0) for step in steps), default=0)

    def server(replica):
        numbered = [arg.replace("{replica}", str(replica)) for arg in args]
        return StdioServerParameters(command=command, args=numbered)

    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                Client(server(replica), mode="auto", elicitation_callback=never_asked)
            )
            for replica in range(replicas)
        ]
        session = clients[0].session
        name, arguments = call["name"], call.get("arguments", {})
        first = await session.call_tool(name, arguments, allow_input_required=True)
        issued = getattr(first, "request_state", None)
        seen = []
        for step in steps:
            client = clients[step.get("on", 0)]
            if "sleep" in step:
                await anyio.sleep(step["sleep"])
                seen.append({"slept": step["sleep"]})
            elif "call" in step:
                other = step["call"]
                seen.append(await outcome(client.call_tool(other["name"], other.get("arguments"))))
            else:
                state = {"issued": issued, "forged": forged(issued or ""), "none": None}[step["retry"]]
                answer = step.get("answer")
                responses = None if answer is None else {"decision": answer}
                retry = client.session.call_tool(
                    name,
                    step.get("arguments", arguments),
                    input_responses=responses,
                    request_state=state,
                    allow_input_required=True,
                )
                seen.append(await outcome(retry))
    print(json.dumps({"first": wire(first), "steps": seen}))


if __name__ == "__main__":
    anyio.run(main, json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3], sys.argv[4:])
