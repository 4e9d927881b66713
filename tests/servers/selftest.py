"""Proves the test servers that scripts/test.sh starts do their job, before the Rust tests
rely on them: that validate_proxy.py lets valid Chat Completions and Messages bodies through to
fakellm and refuses invalid ones (an unknown key at the top, an unknown key deep down, a wrong
type), streaming unbuffered; and that gemini_server.py answers a function-calling round trip,
whole and streamed, in the shapes of the google-genai types, and refuses a missing key and
invalid bodies.

Starts nothing: reads the servers' URLs from the environment, as the Rust tests do:
  TOOL_SDK_FAKELLM_URL   a validate_proxy in front of fakellm serving tests/fakellm/openai.yaml
  TOOL_SDK_GEMINI_URL    gemini_server serving tests/gemini/gemini.yaml (base URL, .../v1beta)
  TOOL_SDK_REJECTIONS_DIR  (optional) where their rejection logs are: each refused body must be
                           found in one of them.
Prints one line a check and `N passed, N failed`; exits non-zero on any failure.
"""

from __future__ import annotations

import copy
import http.client
import json
import os
import sys
import time
import traceback
import urllib.parse
import uuid
from pathlib import Path
from typing import Any, Callable

RUN = uuid.uuid4().hex[:8]
results: list[tuple[str, bool, str]] = []
refused_markers: list[str] = []


def check(name: str) -> Callable[[Callable[[], None]], Callable[[], None]]:
    def wrap(test: Callable[[], None]) -> Callable[[], None]:
        try:
            test()
            results.append((name, True, ""))
        except Exception as error:  # reported, counted as a failure
            detail = "".join(traceback.format_exception_only(type(error), error)).strip()
            results.append((name, False, detail))
        return test

    return wrap


def env(name: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise SystemExit(f"error: {name} is not set (scripts/test.sh sets it)")
    return value.rstrip("/")


class Http:
    """Plain HTTP/1.1 requests to one base URL, timing the pieces of a streamed answer."""

    def __init__(self, base: str) -> None:
        self.base = urllib.parse.urlsplit(base)

    def post(
        self, path: str, body: Any, headers: dict[str, str] | None = None, query: str = ""
    ) -> tuple[int, dict[str, str], bytes, list[tuple[float, bytes]]]:
        """Status, headers, body, and the body's pieces with the time each arrived."""
        connection = http.client.HTTPConnection(self.base.hostname, self.base.port, timeout=15)
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        target = self.base.path + path + (("?" + query) if query else "")
        sent = {"Content-Type": "application/json", **(headers or {})}
        try:
            connection.request("POST", target, body=data, headers=sent)
            response = connection.getresponse()
            pieces = []
            while True:
                piece = response.read1(65536)
                if not piece:
                    break
                pieces.append((time.monotonic(), piece))
            got = {k.lower(): v for k, v in response.getheaders()}
            return response.status, got, b"".join(p for _, p in pieces), pieces
        finally:
            connection.close()

    def get(self, path: str) -> Any:
        connection = http.client.HTTPConnection(self.base.hostname, self.base.port, timeout=15)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return json.loads(response.read())
        finally:
            connection.close()


def sse_events(data: bytes) -> list[dict[str, Any]]:
    """The JSON of each `data:` line (`[DONE]` left out)."""
    events = []
    for line in data.decode().replace("\r\n", "\n").split("\n"):
        if line.startswith("data:"):
            payload = line[len("data:") :].strip()
            if payload and payload != "[DONE]":
                events.append(json.loads(payload))
    return events


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def refused(status: int, body: bytes, *paths: str) -> str:
    """Checks a 400 in the provider's shape whose message names each of `paths`."""
    expect(status == 400, f"expected 400, got {status}: {body[:300]!r}")
    error = json.loads(body)["error"]
    message = error["message"]
    for path in paths:
        expect(path in message, f"the error does not name {path!r}: {message}")
    return message


def marker(case: str) -> str:
    text = f"selftest-{RUN}-{case}"
    refused_markers.append(text)
    return text


# ---------------------------------------------------------------------------------------------
# Chat Completions through the proxy.

OPENAI = Http(env("TOOL_SDK_FAKELLM_URL"))
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Gets the weather.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def chat_body(text: str, **extra: Any) -> dict[str, Any]:
    return copy.deepcopy({
        "model": "fake-model",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": text},
        ],
        "tools": [WEATHER_TOOL],
        "temperature": 0.5,
        "max_tokens": 64,
        **extra,
    })


@check("chat completions: a valid body is forwarded and answered (fakellm's rule)")
def _() -> None:
    from openai.types.chat import ChatCompletion

    conversation = {"X-Fakellm-Conversation-Id": f"selftest-{RUN}-chat"}
    # Refused first: it must not reach fakellm, so the valid one below is still turn 1.
    status, _, body, _ = OPENAI.post(
        "/chat/completions",
        chat_body(marker("chat-top") + " scenario:trip", unknown_option=True),
        conversation,
    )
    refused(status, body, "unknown_option", "Extra inputs are not permitted")

    status, _, body, _ = OPENAI.post(
        "/chat/completions", chat_body("scenario:trip Book Lisbon."), conversation
    )
    expect(status == 200, f"{status}: {body[:300]!r}")
    completion = ChatCompletion.model_validate_json(body)
    calls = completion.choices[0].message.tool_calls or []
    expect(
        [(c.function.name, json.loads(c.function.arguments)) for c in calls]
        == [("get_weather", {"city": "Lisbon"})],
        f"turn 1 of scenario:trip is get_weather(Lisbon): {calls}",
    )


@check("chat completions: a round trip with a tool result, streamed, arrives unbuffered")
def _() -> None:
    conversation = {"X-Fakellm-Conversation-Id": f"selftest-{RUN}-chat-stream"}
    status, _, body, pieces = OPENAI.post(
        "/chat/completions",
        chat_body("scenario:parallel Weather in Lisbon and Oslo?", stream=True),
        conversation,
    )
    expect(status == 200, f"{status}: {body[:300]!r}")
    events = sse_events(body)
    expect(any(e["choices"][0]["delta"].get("tool_calls") for e in events), f"{events}")
    # fakellm sleeps 10 ms between pieces (eight argument pieces here): a proxy that buffered
    # would hand them over at once.
    expect(len(pieces) > 2, f"the stream came in {len(pieces)} piece(s)")
    expect(pieces[-1][0] - pieces[0][0] > 0.03, "the stream's pieces all came at once")

    messages = chat_body("scenario:parallel Weather in Lisbon and Oslo?")["messages"] + [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
                }
                for i, city in enumerate(["Lisbon", "Oslo"])
            ],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": "Lisbon: sunny, 21 °C"},
        {"role": "tool", "tool_call_id": "call_1", "content": "Oslo: sunny, 21 °C"},
    ]
    status, _, body, _ = OPENAI.post(
        "/chat/completions",
        {**chat_body(""), "messages": messages, "stream": True},
        conversation,
    )
    expect(status == 200, f"{status}: {body[:300]!r}")
    text = "".join(e["choices"][0]["delta"].get("content") or "" for e in sse_events(body))
    expect(text == "Sunny in Lisbon and in Oslo.", repr(text))


@check("chat completions: an unknown nested key is refused, with its path")
def _() -> None:
    body = chat_body(marker("chat-nested"))
    body["tools"] = [{**WEATHER_TOOL, "function": {**WEATHER_TOOL["function"], "strictly": True}}]
    status, _, answer, _ = OPENAI.post("/chat/completions", body)
    refused(status, answer, "tools.0.function.function.strictly", "Extra inputs")
    error = json.loads(answer)["error"]
    expect(error["type"] == "invalid_request_error", f"{error}")


@check("chat completions: a wrong type, a wrong role and a missing model are refused")
def _() -> None:
    body = chat_body(marker("chat-type"))
    body["max_tokens"] = "64"
    status, _, answer, _ = OPENAI.post("/chat/completions", body)
    refused(status, answer, "max_tokens")
    body = chat_body(marker("chat-role"))
    body["messages"][0]["role"] = "robot"
    status, _, answer, _ = OPENAI.post("/chat/completions", body)
    refused(status, answer, "messages.0", "robot")
    body = chat_body(marker("chat-model"))
    del body["model"]
    status, _, answer, _ = OPENAI.post("/chat/completions", body)
    refused(status, answer, "model: Field required")


# ---------------------------------------------------------------------------------------------
# Messages through the proxy.


def messages_body(text: str, **extra: Any) -> dict[str, Any]:
    return copy.deepcopy({
        "model": "claude-test",
        "max_tokens": 256,
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": text},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "input": {"city": "Lisbon"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": "Lisbon: sunny, 21 °C",
                    }
                ],
            },
        ],
        "tools": [
            {
                "name": "get_weather",
                "description": "Gets the weather.",
                "input_schema": WEATHER_TOOL["function"]["parameters"],
            }
        ],
        **extra,
    })


@check("messages: a valid body is forwarded and answered, whole and streamed")
def _() -> None:
    from anthropic.types import Message

    conversation = {"X-Fakellm-Conversation-Id": f"selftest-{RUN}-messages"}
    # Two turns of nothing, then the third: scenario:malformed's turn-3 rule wants the
    # Lisbon tool_result of the body, so its answer shows fakellm read the body passed on.
    for _ in range(2):
        status, _, body, _ = OPENAI.post("/messages", messages_body("nothing"), conversation)
        expect(status == 200, f"{status}: {body[:300]!r}")
    status, _, body, _ = OPENAI.post(
        "/messages", messages_body("scenario:malformed Weather?"), conversation
    )
    expect(status == 200, f"{status}: {body[:300]!r}")
    message = Message.model_validate_json(body)
    expect(message.content[0].text == "Sunny in Lisbon.", f"{message.content}")

    status, _, body, _ = OPENAI.post("/messages", messages_body("hello", stream=True))
    expect(status == 200, f"{status}: {body[:300]!r}")
    kinds = [e["type"] for e in sse_events(body)]
    expect(kinds[0] == "message_start" and kinds[-1] == "message_stop", f"{kinds}")


@check("messages: an unknown top-level key and an unknown nested key are refused")
def _() -> None:
    status, _, answer, _ = OPENAI.post(
        "/messages", messages_body(marker("messages-top"), temperature_k=1)
    )
    refused(status, answer, "temperature_k", "Extra inputs")
    expect(json.loads(answer)["type"] == "error", "Anthropic's error has type: error")

    body = messages_body(marker("messages-nested"))
    body["messages"][2]["content"][0]["is_err"] = True
    status, _, answer, _ = OPENAI.post("/messages", body)
    refused(status, answer, "messages.2", "tool_result.is_err", "Extra inputs")


@check("messages: a missing max_tokens and an unknown block type are refused")
def _() -> None:
    body = messages_body(marker("messages-max-tokens"))
    del body["max_tokens"]
    status, _, answer, _ = OPENAI.post("/messages", body)
    refused(status, answer, "max_tokens: Field required")
    body = messages_body(marker("messages-block"))
    body["messages"][1]["content"][1]["type"] = "tool_call"
    status, _, answer, _ = OPENAI.post("/messages", body)
    refused(status, answer, "messages.1", "tool_call")


# ---------------------------------------------------------------------------------------------
# Gemini.

GEMINI = Http(env("TOOL_SDK_GEMINI_URL"))
KEY = {"x-goog-api-key": "not-a-real-key"}
DECLARATION = {
    "name": "get_weather",
    "description": "Gets the weather.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city."}},
        "required": ["city"],
    },
}


def gemini_body(text: str, *later: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return copy.deepcopy({
        "contents": [{"role": "user", "parts": [{"text": text}]}, *later],
        "tools": [{"functionDeclarations": [DECLARATION]}],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "generationConfig": {"temperature": 0.5, "maxOutputTokens": 256},
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
        **extra,
    })


@check("gemini: a functionCall / functionResponse round trip, whole then streamed")
def _() -> None:
    from google.genai.types import GenerateContentResponse

    conversation = {**KEY, "X-Fakellm-Conversation-Id": f"selftest-{RUN}-gemini"}
    path = "/models/gemini-test:generateContent"
    # Refused first: a refused body counts no turn.
    status, _, body, _ = GEMINI.post(
        path, gemini_body(marker("gemini-first") + " scenario:weather", bogus=1), conversation
    )
    refused(status, body, "bogus")

    status, _, body, _ = GEMINI.post(
        path, gemini_body("scenario:weather In Lisbon?"), conversation
    )
    expect(status == 200, f"{status}: {body[:300]!r}")
    response = GenerateContentResponse.model_validate_json(body)
    candidate = response.candidates[0]
    call = candidate.content.parts[0].function_call
    expect(call is not None, f"no functionCall: {candidate}")
    expect((call.name, call.args) == ("get_weather", {"city": "Lisbon"}), f"{call}")
    expect(call.id is None, "Gemini's function calls have no id")
    expect(candidate.content.role == "model", f"{candidate}")
    expect(candidate.finish_reason.value == "STOP", f"{candidate}")
    expect(response.usage_metadata.total_token_count > 0, f"{response.usage_metadata}")

    model_turn = {
        "role": "model",
        "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Lisbon"}}}],
    }
    result_turn = {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "name": "get_weather",
                    "response": {"result": "Lisbon: sunny, 21 °C"},
                }
            }
        ],
    }
    status, headers, body, pieces = GEMINI.post(
        "/models/gemini-test:streamGenerateContent",
        gemini_body("scenario:weather In Lisbon?", model_turn, result_turn),
        conversation,
        query="alt=sse",
    )
    expect(status == 200, f"{status}: {body[:300]!r}")
    expect(headers.get("content-type", "").startswith("text/event-stream"), f"{headers}")
    chunks = [GenerateContentResponse.model_validate(e) for e in sse_events(body)]
    expect(len(chunks) > 1, f"the text came in {len(chunks)} chunk(s)")
    text = "".join(c.candidates[0].content.parts[0].text for c in chunks)
    expect(text == "It is sunny in Lisbon.", repr(text))
    expect(chunks[-1].candidates[0].finish_reason is not None, "the last chunk has finishReason")
    expect(chunks[-1].usage_metadata is not None, "the last chunk has usageMetadata")
    expect(all(c.candidates[0].finish_reason is None for c in chunks[:-1]), "only the last")
    expect(len(pieces) > 1, "the events came one by one")

    seen = GEMINI.get(f"/_gemini/requests?conversation={conversation['X-Fakellm-Conversation-Id']}")
    statuses = [(r["status"], r["error"]) for r in seen]
    expect(statuses == [(200, None), (200, None)], f"{statuses}")
    expect(seen[1]["body"]["contents"][2] == result_turn, "the bodies received are recorded")


@check("gemini: a streamed function call comes whole in one chunk")
def _() -> None:
    status, _, body, _ = GEMINI.post(
        "/models/gemini-test:streamGenerateContent",
        gemini_body("scenario:weather Lisbon?"),
        {**KEY, "X-Fakellm-Conversation-Id": f"selftest-{RUN}-gemini-call"},
        query="alt=sse",
    )
    expect(status == 200, f"{status}: {body[:300]!r}")
    events = sse_events(body)
    expect(len(events) == 1, f"{events}")
    part = events[0]["candidates"][0]["content"]["parts"][0]
    expect(part == {"functionCall": {"name": "get_weather", "args": {"city": "Lisbon"}}}, f"{part}")


@check("gemini: no x-goog-api-key is 401 UNAUTHENTICATED")
def _() -> None:
    status, _, body, _ = GEMINI.post("/models/gemini-test:generateContent", gemini_body("hello"))
    expect(status == 401, f"{status}")
    error = json.loads(body)["error"]
    expect(error["status"] == "UNAUTHENTICATED" and error["code"] == 401, f"{error}")


@check("gemini: an unknown top-level key and an unknown nested key are refused")
def _() -> None:
    path = "/models/gemini-test:generateContent"
    status, _, body, _ = GEMINI.post(path, gemini_body(marker("gemini-top"), temperature=0.5), KEY)
    message = refused(status, body, "temperature", "Extra inputs")
    expect(json.loads(body)["error"]["status"] == "INVALID_ARGUMENT", message)

    nested = gemini_body(marker("gemini-nested"))
    nested["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["city"]["minLen"] = 1
    status, _, body, _ = GEMINI.post(path, nested, KEY)
    refused(status, body, "tools.0.functionDeclarations.0.parameters.properties.city.minLen")


@check("gemini: parametersJsonSchema is a JSONSchema (with prefixItems), never beside parameters")
def _() -> None:
    path = "/models/gemini-test:generateContent"
    body = gemini_body(marker("gemini-json-schema"))
    declaration = body["tools"][0]["functionDeclarations"][0]
    declaration["parametersJsonSchema"] = declaration.pop("parameters")
    declaration["parametersJsonSchema"]["properties"]["city"]["not"] = {}
    status, _, answer, _ = GEMINI.post(path, body, KEY)
    refused(status, answer, "parametersJsonSchema", "not")

    # `prefixItems`, which the API takes and the package's type lacks: its elements are
    # checked as schemas.
    body = gemini_body(marker("gemini-tuple"))
    declaration = body["tools"][0]["functionDeclarations"][0]
    declaration["parametersJsonSchema"] = declaration.pop("parameters")
    declaration["parametersJsonSchema"]["properties"]["city"] = {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "number", "minLen": 1}],
    }
    status, _, answer, _ = GEMINI.post(path, body, KEY)
    refused(status, answer, "parametersJsonSchema", "minLen")

    body = gemini_body(marker("gemini-both"))
    declaration = body["tools"][0]["functionDeclarations"][0]
    declaration["parametersJsonSchema"] = declaration["parameters"]
    status, _, answer, _ = GEMINI.post(path, body, KEY)
    refused(status, answer, "mutually exclusive")


@check("gemini: snake_case names, a bad enum, a bad role and an empty part are refused")
def _() -> None:
    path = "/models/gemini-test:streamGenerateContent"
    body = gemini_body(marker("gemini-snake"))
    body["generation_config"] = body.pop("generationConfig")
    status, _, answer, _ = GEMINI.post(path, body, KEY, query="alt=sse")
    refused(status, answer, "generation_config", "generationConfig")

    body = gemini_body(marker("gemini-enum"))
    body["toolConfig"]["functionCallingConfig"]["mode"] = "SOMETIMES"
    status, _, answer, _ = GEMINI.post(path, body, KEY, query="alt=sse")
    refused(status, answer, "toolConfig.functionCallingConfig.mode")

    body = gemini_body(marker("gemini-role"), {"role": "assistant", "parts": [{}]})
    status, _, answer, _ = GEMINI.post(path, body, KEY, query="alt=sse")
    refused(status, answer, "contents.1.role", "contents.1.parts.0")


# ---------------------------------------------------------------------------------------------


@check("every refused body is in a rejection log")
def _() -> None:
    folder = os.environ.get("TOOL_SDK_REJECTIONS_DIR", "").strip()
    if not folder:
        return  # run by hand without the logs' folder: nothing to look at
    logs = sorted(Path(folder).glob("*.rejections"))
    logged = "".join(log.read_text(encoding="utf-8") for log in logs)
    missing = [m for m in refused_markers if m not in logged]
    expect(not missing, f"not logged: {missing}")


def main() -> int:
    for name, ok, detail in results:
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f"\n       {detail}" if detail else ""))
    failed = sum(not ok for _, ok, _ in results)
    print(f"selftest: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
