"""A Gemini API test server answering from fakellm-format YAML rules.

    python gemini_server.py --port P --config tests/gemini/NAME.yaml [--rejections FILE]

Serves, as the Gemini API does (base URL `http://127.0.0.1:P/v1beta`):

  POST /v1beta/models/{model}:generateContent
  POST /v1beta/models/{model}:streamGenerateContent?alt=sse   (server-sent events; without
       `alt=sse`, a JSON array of the same chunks, as Gemini answers)
  GET  /_gemini/requests[?conversation=ID]   the requests received, bodies and headers
  POST /_gemini/reset                        forgets the conversations and the requests
  GET  /_gemini/health

The API key must come in the `x-goog-api-key` header (401 UNAUTHENTICATED without one). Each
body is validated against the `google-genai` package's types (a pydantic model of the REST
body built from `google.genai.types`: extra keys refused, camelCase names as on the wire, and
the API's own rules that the types do not carry: see `Validator`); a body that fails is
answered 400 INVALID_ARGUMENT and appended with its error to the rejections file, as
validate_proxy.py does.

Answers come from rules in fakellm's YAML format, loaded and matched by fakellm itself
(`fakellm.config.load_config`, `fakellm.matcher.match_request`) over the request rewritten in
the shape fakellm reads (see `as_fakellm_body`); tests/gemini/gemini.yaml documents the format.
"""

from __future__ import annotations

import argparse
import collections
import collections.abc
import enum
import hashlib
import http.server
import json
import re
import socketserver
import sys
import threading
import time
import types as pytypes
import typing
import urllib.parse
import uuid
import warnings
from pathlib import Path
from typing import Any, Optional

import pydantic
from pydantic.alias_generators import to_camel

# validate_proxy.py beside this file; no __pycache__ left in the work tree for it.
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gemini_api_schema import json_schema_error  # noqa: E402
from validate_proxy import RejectionLog, problems, summary  # noqa: E402

# google.rpc status names of the HTTP statuses, as Gemini's error bodies give them.
STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    412: "FAILED_PRECONDITION",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

ROUTE = re.compile(
    r"^/v1beta/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$"
)

# The members of Part's `data` oneof: a part has exactly one.
PART_DATA = (
    "text",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "executableCode",
    "codeExecutionResult",
    "toolCall",
    "toolResponse",
)
# Gemini's rule for function names.
FUNCTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:\-]{0,63}$")


def error_body(code: int, message: str) -> dict[str, Any]:
    status = STATUS_NAMES.get(code, "UNKNOWN")
    return {"error": {"code": code, "message": message, "status": status}}


# ---------------------------------------------------------------------------------------------
# Validation.


class Validator:
    """Validates a generateContent body.

    The REST body has no type of its own in google-genai (the SDK builds it from its
    `GenerateContentConfig`), so `Request` is made here from the package's types of its
    members. Then come the checks the types do not make and the API does:
      * camelCase names only: the SDK's models also take their snake_case names;
      * an enum value the SDK does not know (it only warns) is an error, in any case
        (`"object"` and `"OBJECT"` are both Gemini's `OBJECT`);
      * `contents` is not empty, each content has parts, a role is `user` or `model`;
      * a part has exactly one of its data members (text, functionCall, functionResponse...);
      * function calls and responses have a name; a declaration's name follows Gemini's rule
        (a letter or underscore, then letters, digits, `_ . : -`, 64 at most), and it gives
        `parameters` or `parametersJsonSchema`, not both;
      * `parametersJsonSchema` is what google-genai's `JSONSchema` takes, with `prefixItems`
        (which the API takes and the type lacks: see gemini_api_schema.py).
    """

    def __init__(self) -> None:
        from google.genai import types

        class Request(pydantic.BaseModel):
            model_config = pydantic.ConfigDict(
                extra="forbid",
                alias_generator=to_camel,
                validate_by_alias=True,
                validate_by_name=False,
            )
            contents: list[types.Content]
            tools: Optional[list[types.Tool]] = None
            tool_config: Optional[types.ToolConfig] = None
            system_instruction: Optional[types.Content] = None
            generation_config: Optional[types.GenerationConfig] = None
            safety_settings: Optional[list[types.SafetySetting]] = None
            cached_content: Optional[str] = None

        self.request = Request
        # warnings.catch_warnings is process-wide: one validation at a time.
        self.lock = threading.Lock()

    def check(self, raw: bytes) -> tuple[Any, str | None]:
        """The body, and None when it is valid, else what is wrong with it."""
        try:
            body = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            return None, f"Invalid JSON payload received. {error}"
        if not isinstance(body, dict):
            return body, "Invalid JSON payload received. The body is not an object."
        found = _walk(self.request, body, ())
        with self.lock, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                self.request.model_validate_json(raw)
            except pydantic.ValidationError as error:
                # A snake_case key is also an extra key at the top: said once, as `_walk` says.
                said = {loc for loc, _ in found}
                found = [p for p in problems(error, body) if p[0] not in said] + found
                return body, summary(found)
        found += _rules(body)
        if not found:
            # An enum value where `_walk` did not look (the SDK only warns).
            found = [
                ((), f"unknown enum value: {w.message}")
                for w in caught
                if "is not a valid" in str(w.message)
            ]
        return body, summary(found) if found else None


def _walk(tp: Any, value: Any, loc: tuple) -> list[tuple[tuple, str]]:
    """What the SDK's models let through and the API does not, in `value` (of type `tp`) and
    below: a key that is the snake_case name of a field instead of its camelCase JSON name,
    and an enum value the enum does not have (any case)."""
    tp = _unwrap(tp)
    out: list[tuple[tuple, str]] = []
    origin = typing.get_origin(tp)
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel) and isinstance(value, dict):
        wire = {name: field.alias or to_camel(name) for name, field in tp.model_fields.items()}
        fields = {alias: tp.model_fields[name] for name, alias in wire.items()}
        for key, item in value.items():
            if key in fields:
                out += _walk(fields[key].annotation, item, loc + (key,))
            elif key in wire and wire[key] != key:
                out.append((loc + (key,), f"unknown name; the JSON name is `{wire[key]}`"))
    elif isinstance(tp, type) and issubclass(tp, enum.Enum) and isinstance(value, str):
        names = {member.name.upper() for member in tp} | {
            str(member.value).upper() for member in tp
        }
        if value.upper() not in names:
            out.append((loc, f"Invalid value {value!r} (one of {', '.join(m.name for m in tp)})"))
    elif origin in (list, collections.abc.Sequence) and isinstance(value, list):
        (inner,) = typing.get_args(tp) or (Any,)
        for index, item in enumerate(value):
            out += _walk(inner, item, loc + (index,))
    elif origin is dict and isinstance(value, dict):
        args = typing.get_args(tp)
        if len(args) == 2:
            for key, item in value.items():
                out += _walk(args[1], item, loc + (key,))
    return out


def _unwrap(tp: Any) -> Any:
    """`X` of `Optional[X]`."""
    if typing.get_origin(tp) is typing.Union or isinstance(tp, pytypes.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return _unwrap(args[0])
    return tp


def _rules(body: dict[str, Any]) -> list[tuple[tuple, str]]:
    out: list[tuple[tuple, str]] = []
    contents = body.get("contents") or []
    if not contents:
        out.append((("contents",), "contents is not specified"))
    for i, content in enumerate(contents):
        out += _content(content, ("contents", i))
    if body.get("systemInstruction") is not None:
        out += _content(body["systemInstruction"], ("systemInstruction",), system=True)
    for t, tool in enumerate(body.get("tools") or []):
        for d, declaration in enumerate(tool.get("functionDeclarations") or []):
            loc = ("tools", t, "functionDeclarations", d)
            name = declaration.get("name") or ""
            if not FUNCTION_NAME.match(name):
                out.append(
                    (
                        loc + ("name",),
                        f"Invalid function name {name!r}. Must start with a letter or an "
                        "underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), "
                        "dots (.), colons (:), or dashes (-), with a maximum length of 64.",
                    )
                )
            if (
                declaration.get("parameters") is not None
                and declaration.get("parametersJsonSchema") is not None
            ):
                out.append((loc, "parameters and parametersJsonSchema are mutually exclusive"))
            json_schema = declaration.get("parametersJsonSchema")
            if json_schema is not None:
                # The declaration's type takes any value here; the package's JSONSchema type
                # says what the API reads in it, and forbids what it does not, but for
                # `prefixItems`, which the API takes and the type lacks (gemini_api_schema.py).
                error = json_schema_error(json_schema)
                if error is not None:
                    out.append((loc + ("parametersJsonSchema",), error))
    return out


def _content(content: dict[str, Any], loc: tuple, system: bool = False) -> list[tuple[tuple, str]]:
    out: list[tuple[tuple, str]] = []
    role = content.get("role")
    if not system and role is not None and role not in ("user", "model"):
        out.append((loc + ("role",), f"Please use a valid role: user, model (got {role!r})"))
    parts = content.get("parts") or []
    if not parts:
        out.append((loc + ("parts",), "contents.parts must not be empty"))
    for p, part in enumerate(parts):
        at = loc + ("parts", p)
        data = [key for key in PART_DATA if part.get(key) is not None]
        if len(data) != 1:
            out.append(
                (
                    at,
                    "required oneof field 'data' must have one initialized field"
                    + (f" (got {', '.join(data)})" if data else ""),
                )
            )
        for key in ("functionCall", "functionResponse"):
            if part.get(key) is not None and not part[key].get("name"):
                out.append((at + (key, "name"), "Name cannot be empty"))
    return out


# ---------------------------------------------------------------------------------------------
# Rules and conversations.


def texts(content: dict[str, Any] | None) -> list[str]:
    return [p["text"] for p in (content or {}).get("parts") or [] if isinstance(p.get("text"), str)]


def tool_result_texts(response: Any) -> list[str]:
    """What a rule's `tool_result_contains` is matched against for one functionResponse: its
    `response` object as JSON, and each string in it (so a needle with a quote or a newline
    matches as the tool wrote it)."""
    out = [json.dumps(response, ensure_ascii=False)]

    def strings(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                strings(item)
        elif isinstance(value, list):
            for item in value:
                strings(item)

    strings(response)
    return out


def as_fakellm_body(body: dict[str, Any], model: str) -> dict[str, Any]:
    """The request in the shape fakellm's matcher reads for Anthropic: `system` (the system
    instruction's text), one message a content (role `model` read as `assistant`, so that a
    rule's `previous_message_role: assistant` means the same for every provider), text parts
    as text blocks, functionResponse parts as tool_result blocks, functionCall parts as
    tool_use blocks; tools as the names of the function declarations."""
    messages = []
    for content in body.get("contents") or []:
        role = content.get("role") or "user"
        blocks: list[dict[str, Any]] = []
        for part in content.get("parts") or []:
            if isinstance(part.get("text"), str):
                blocks.append({"type": "text", "text": part["text"]})
            if part.get("functionCall") is not None:
                call = part["functionCall"]
                blocks.append(
                    {"type": "tool_use", "name": call.get("name"), "input": call.get("args") or {}}
                )
            if part.get("functionResponse") is not None:
                for text in tool_result_texts(part["functionResponse"].get("response")):
                    blocks.append({"type": "tool_result", "content": text})
        messages.append({"role": "assistant" if role == "model" else role, "content": blocks})
    shaped: dict[str, Any] = {"model": model, "messages": messages}
    system = " ".join(texts(body.get("systemInstruction")))
    if system:
        shaped["system"] = system
    shaped["tools"] = [
        {"name": declaration.get("name")}
        for tool in body.get("tools") or []
        for declaration in tool.get("functionDeclarations") or []
    ]
    return shaped


class Conversation:
    """What fakellm's matcher reads of a conversation: its turn and the tool results seen."""

    def __init__(self) -> None:
        self.turn = 0
        self.seen_tool_results: list[str] = []


class Conversations:
    """Turns counted per conversation, as fakellm counts them: the `X-Fakellm-Conversation-Id`
    header, else the first user text; tool results remembered across turns."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.states: dict[str, Conversation] = {}

    @staticmethod
    def identify(body: dict[str, Any], headers: dict[str, str]) -> str:
        explicit = headers.get("x-fakellm-conversation-id")
        if explicit:
            return explicit
        first = next(
            (c for c in body.get("contents") or [] if (c.get("role") or "user") == "user"), None
        )
        if first is None:
            digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
            return "anon-" + digest[:12]
        text = " ".join(texts(first))
        return "conv-" + hashlib.sha256(text.encode()).hexdigest()[:12]

    def advance(self, conversation: str, shaped: dict[str, Any]) -> Conversation:
        """Records this request's tool results, counts its turn, and returns a copy."""
        results = [
            block["content"]
            for message in shaped["messages"]
            for block in message["content"]
            if block["type"] == "tool_result"
        ]
        with self.lock:
            state = self.states.setdefault(conversation, Conversation())
            for text in results:
                if text not in state.seen_tool_results:
                    state.seen_tool_results.append(text)
            state.turn += 1
            copy = Conversation()
            copy.turn = state.turn
            copy.seen_tool_results = list(state.seen_tool_results)
            return copy

    def reset(self) -> None:
        with self.lock:
            self.states.clear()


# ---------------------------------------------------------------------------------------------
# Answers.


def approx_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


def split_text(text: str, pieces: int = 3) -> list[str]:
    """`text` in up to `pieces` pieces cut at spaces (each space begins a piece), which put
    together give `text` back exactly."""
    spaces = [i for i, ch in enumerate(text) if ch == " " and i > 0]
    if not spaces or pieces < 2:
        return [text]
    targets = [len(text) * k / pieces for k in range(1, pieces)]
    cuts = sorted({min(spaces, key=lambda i: abs(i - target)) for target in targets})
    bounds = [0] + cuts + [len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


class Answer:
    """What a matched rule (or none) says to answer."""

    def __init__(self, rule: Any, body: dict[str, Any], shaped: dict[str, Any], model: str) -> None:
        respond = rule.respond if rule is not None else None
        self.rule = rule.name if rule is not None else "<fallthrough>"
        self.status = respond.status if respond is not None else 200
        self.error = (respond.error if respond is not None else None) or "Mock error"
        self.calls = [
            {"name": call["name"], "args": call.get("arguments") or {}}
            for call in (respond.tool_calls if respond is not None else None) or []
        ]
        self.text = respond.content if respond is not None else None
        if self.text is None and not self.calls:
            # As fakellm: no rule, or one without content, answers a stable made-up text.
            digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:8]
            self.text = f"[mock response for {model}, fingerprint {digest}]"
        self.model = model
        self.response_id = uuid.uuid4().hex[:20]
        prompt = [shaped.get("system", "")] + [
            block.get("text") or block.get("content") or ""
            for message in shaped["messages"]
            for block in message["content"]
        ]
        self.prompt_tokens = sum(approx_tokens(text) for text in prompt)
        self.output_tokens = approx_tokens(self.text or "") + sum(
            approx_tokens(json.dumps(call["args"])) for call in self.calls
        )

    def usage(self) -> dict[str, int]:
        return {
            "promptTokenCount": self.prompt_tokens,
            "candidatesTokenCount": self.output_tokens,
            "totalTokenCount": self.prompt_tokens + self.output_tokens,
        }

    def _response(self, parts: list[dict[str, Any]], last: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        response: dict[str, Any] = {"candidates": [candidate]}
        if last:
            candidate["finishReason"] = "STOP"
            response["usageMetadata"] = self.usage()
        response["modelVersion"] = self.model
        response["responseId"] = self.response_id
        return response

    def whole(self) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        if self.text:
            parts.append({"text": self.text})
        parts += [{"functionCall": call} for call in self.calls]
        return self._response(parts, last=True)

    def chunks(self) -> list[dict[str, Any]]:
        """The stream: the text in a few pieces, then each function call whole in a chunk of
        its own; the last chunk has the finish reason and the usage."""
        pieces: list[list[dict[str, Any]]] = []
        if self.text:
            pieces += [[{"text": piece}] for piece in split_text(self.text)]
        pieces += [[{"functionCall": call}] for call in self.calls]
        if not pieces:
            pieces = [[{"text": ""}]]
        return [self._response(parts, last=i == len(pieces) - 1) for i, parts in enumerate(pieces)]


# ---------------------------------------------------------------------------------------------
# The server.


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "Server"

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(body)
                body += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.read_body()
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_gemini/health":
            self.send_json(200, {"ok": True, "rules": len(self.server.config.rules)})
        elif url.path == "/_gemini/requests":
            wanted = urllib.parse.parse_qs(url.query).get("conversation", [None])[0]
            with self.server.lock:
                seen = list(self.server.requests)
            if wanted is not None:
                seen = [r for r in seen if r["conversation"] == wanted]
            self.send_json(200, seen)
        else:
            self.send_json(404, error_body(404, f"Not found: GET {url.path}"))

    def do_POST(self) -> None:
        raw = self.read_body()
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_gemini/reset":
            self.server.conversations.reset()
            with self.server.lock:
                self.server.requests.clear()
            self.send_json(200, {"reset": True})
            return
        route = ROUTE.match(url.path)
        if route is None:
            self.send_json(404, error_body(404, f"Not found: POST {url.path}"))
            return
        model, method = route["model"], route["method"]
        stream = method == "streamGenerateContent"
        sse = stream and urllib.parse.parse_qs(url.query).get("alt") == ["sse"]
        headers = {k.lower(): v for k, v in self.headers.items()}
        record: dict[str, Any] = {
            "model": model,
            "method": method,
            "query": url.query,
            "conversation": None,
            "headers": headers,
            "body": None,
            "status": None,
            "error": None,
        }

        def finish(status: int, error: str | None = None) -> None:
            record["status"], record["error"] = status, error
            with self.server.lock:
                self.server.requests.append(record)

        if not headers.get("x-goog-api-key", "").strip():
            message = (
                "Method doesn't allow unregistered callers (callers without established "
                "identity). Please use API Key or other form of API consumer identity to call "
                "this API: no x-goog-api-key header."
            )
            finish(401, message)
            self.send_json(401, error_body(401, message))
            return

        body, error = self.server.validator.check(raw)
        record["body"] = body if body is not None else raw.decode("utf-8", "replace")
        if error is not None:
            self.server.rejections.add(self.command, self.path, error, raw)
            finish(400, error)
            self.send_json(400, error_body(400, error))
            return

        shaped = as_fakellm_body(body, model)
        conversation = Conversations.identify(body, headers)
        record["conversation"] = conversation
        state = self.server.conversations.advance(conversation, shaped)
        from fakellm.matcher import match_request

        rule = match_request(shaped, headers, self.server.config, api="anthropic", state=state)
        answer = Answer(rule, body, shaped, model)
        record["rule"], record["turn"] = answer.rule, state.turn
        extra = {"X-Fakellm-Conversation-Id": conversation}

        if answer.status >= 400:
            # Unlike fakellm, a streamed request gets the error too: Gemini refuses before
            # it streams anything.
            finish(answer.status, answer.error)
            self.send_json(answer.status, error_body(answer.status, answer.error), extra)
            return
        finish(200)
        if not stream:
            self.send_json(200, answer.whole(), extra)
        elif not sse:
            self.send_json(200, answer.chunks(), extra)
        else:
            self.send_sse(answer.chunks(), extra)

    def send_sse(self, chunks: list[dict[str, Any]], headers: dict[str, str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        try:
            for index, chunk in enumerate(chunks):
                # Gemini ends each event with CRLF CRLF.
                event = b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\r\n\r\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
                if index + 1 < len(chunks):
                    time.sleep(0.01)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, config: str, rejections: str | None, verbose: bool) -> None:
        from fakellm.config import load_config

        if not Path(config).is_file():
            raise SystemExit(f"no such rule file: {config}")
        self.config = load_config(config)
        self.validator = Validator()
        self.conversations = Conversations()
        self.rejections = RejectionLog(rejections)
        self.requests: collections.deque = collections.deque(maxlen=1000)
        self.lock = threading.Lock()
        self.verbose = verbose
        super().__init__(("127.0.0.1", port), Handler)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--config", required=True, help="a rule file: tests/gemini/NAME.yaml")
    parser.add_argument("--rejections", help="file the refused bodies are appended to")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args()
    try:
        server = Server(args.port, args.config, args.rejections, args.verbose)
    except ValueError as error:  # a rule file fakellm refuses
        raise SystemExit(f"{args.config}: {error}")
    print(
        f"gemini_server on http://127.0.0.1:{args.port}/v1beta with "
        f"{len(server.config.rules)} rule(s) from {args.config}",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
