"""A validating HTTP proxy in front of a fakellm server.

    python validate_proxy.py --port P --upstream http://127.0.0.1:Q [--rejections FILE]

Every request (method, path, query, headers, body) is forwarded to the upstream server and its
answer is passed back as it comes, streamed responses (SSE) included, chunk by chunk. Before
that, the JSON body of

  * `POST .../chat/completions` is validated against the `openai` package's request type,
    `openai.types.chat.completion_create_params.CompletionCreateParams{Streaming,NonStreaming}`,
  * `POST .../messages` against the `anthropic` package's
    `anthropic.types.message_create_params.MessageCreateParams{Streaming,NonStreaming}`,

the variant chosen by the body's `stream`. The packages' request types are TypedDicts, which
pydantic validates leniently: unknown keys are ignored and `Iterable[...]` members are only
checked when iterated. So each type is first rebuilt, recursively, as TypedDicts that forbid
extra keys and take lists where the package says `Iterable` (see `StrictTypes`), and bodies
are validated in strict mode (`"64"` is no integer). A body that does
not fit is answered 400 with `{"error": {"type": "invalid_request_error", "message": ...}}`,
the shape both providers use (Anthropic's with its `"type": "error"` beside), is not
forwarded, and is appended, with its error, to the rejections file (one JSON object a line).
A body that fits is kept (the last 2,000), and `GET /_proxy/requests?conversation=ID` lists
those sent with `X-Fakellm-Conversation-Id: ID`, so a test can look at what its client sent.

Only the standard library, pydantic, openai and anthropic are used.
"""

from __future__ import annotations

import argparse
import collections
import collections.abc
import http.client
import http.server
import json
import os
import socketserver
import sys
import threading
import time
import typing
import urllib.parse
from typing import Any

import pydantic
import typing_extensions

# Headers that belong to one connection, not to the request: never forwarded.
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
}

# ---------------------------------------------------------------------------------------------
# Strict versions of the packages' request types.

_SEQUENCES = {
    list,
    tuple,
    set,
    frozenset,
    collections.abc.Iterable,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Collection,
    collections.abc.Set,
    collections.abc.Iterator,
}
_MAPPINGS = {dict, collections.abc.Mapping, collections.abc.MutableMapping}
_WRAPPERS = {
    typing_extensions.Required,
    typing_extensions.NotRequired,
    typing_extensions.ReadOnly,
    typing.Required,
    typing.NotRequired,
}
_FILES = {typing.IO, os.PathLike}
_FORBID = pydantic.ConfigDict(extra="forbid")


class StrictTypes:
    """Rebuilds a type so that pydantic validates it as the API would: every TypedDict becomes
    one that forbids unknown keys, every iterable a list (validated at once), and a union of
    TypedDicts told apart by a literal key (`role`, `type`) a discriminated union, so that an
    error names the one member it is about instead of every member's complaint."""

    def __init__(self) -> None:
        self._done: dict[Any, Any] = {}

    def __call__(self, tp: Any) -> Any:
        if typing_extensions.is_typeddict(tp):
            return self._typeddict(tp)
        origin = typing_extensions.get_origin(tp)
        args = typing_extensions.get_args(tp)
        if origin in _WRAPPERS:
            return self(args[0])
        if origin is typing_extensions.Annotated:
            # The packages' own metadata (PropertyInfo: aliases, formats) means nothing to
            # pydantic; aliases are applied to the keys in `_typeddict`.
            return self(args[0])
        if origin is typing.Union or _is_new_union(tp):
            return self._union(args)
        if tp in _FILES or origin in _FILES:
            # Files the SDK reads and base64-encodes itself: on the wire, a string.
            return str
        if origin is typing_extensions.Literal or origin is None:
            return tp
        if origin in _SEQUENCES:
            if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
                return typing.Tuple[tuple(self(a) for a in args)] if args else list
            return typing.List[self(args[0])] if args else list
        if origin in _MAPPINGS:
            if not args:
                return dict
            return typing.Dict[self(args[0]), self(args[1])]
        return tp

    def _typeddict(self, cls: type) -> Any:
        if cls in self._done:
            return self._done[cls]
        # Made empty first and filled in afterwards, so that a type that refers to itself
        # refers to the strict version.
        strict = typing_extensions.TypedDict(cls.__name__, {}, total=False)
        strict.__pydantic_config__ = _FORBID
        strict.__module__ = __name__
        self._done[cls] = strict
        hints = typing_extensions.get_type_hints(cls, include_extras=True)
        annotations: dict[str, Any] = {}
        required: set[str] = set()
        for key, hint in hints.items():
            wire = _alias(hint) or key
            field = self(hint)
            if _required(hint, key in cls.__required_keys__):
                annotations[wire] = typing_extensions.Required[field]
                required.add(wire)
            else:
                annotations[wire] = typing_extensions.NotRequired[field]
        strict.__annotations__ = annotations
        strict.__required_keys__ = frozenset(required)
        strict.__optional_keys__ = frozenset(annotations) - frozenset(required)
        return strict

    def _union(self, args: tuple[Any, ...]) -> Any:
        members = []
        for arg in args:
            flat = self(arg)
            if typing_extensions.get_origin(flat) is typing.Union:
                members.extend(typing_extensions.get_args(flat))
            else:
                members.append(flat)
        # The packages also accept their response models (pydantic, extra keys allowed) where
        # a block can be sent back as it came; on the wire such a block is the dict its
        # `...Param` type describes, which is what is checked.
        if any(typing_extensions.is_typeddict(m) for m in members):
            members = [m for m in members if not _is_model(m)]
        dicts = [m for m in members if typing_extensions.is_typeddict(m)]
        tag = _discriminator(dicts) if len(dicts) > 1 else None
        if tag is not None:
            rest = [m for m in members if m not in dicts]
            tagged = typing_extensions.Annotated[
                typing.Union[tuple(dicts)], pydantic.Field(discriminator=tag)
            ]
            members = rest + [tagged]
        if len(members) == 1:
            return members[0]
        return typing.Union[tuple(members)]


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def _is_new_union(tp: Any) -> bool:
    import types

    return isinstance(tp, types.UnionType)


def _required(hint: Any, by_totality: bool) -> bool:
    """Whether a key is required: as its `Required[...]` / `NotRequired[...]` says, else as
    the totality of the TypedDict that declared it. (The packages write their annotations as
    strings, so the classes' own `__required_keys__` never saw those markers and only reflect
    the totality.)"""
    while True:
        origin = typing_extensions.get_origin(hint)
        if origin in (typing_extensions.Required, typing.Required):
            return True
        if origin in (typing_extensions.NotRequired, typing.NotRequired):
            return False
        if origin in (typing_extensions.Annotated, typing_extensions.ReadOnly):
            hint = typing_extensions.get_args(hint)[0]
            continue
        return by_totality


def _alias(hint: Any) -> str | None:
    """The wire name a package gave a key through its `PropertyInfo(alias=...)` metadata."""
    while True:
        origin = typing_extensions.get_origin(hint)
        if origin in _WRAPPERS:
            hint = typing_extensions.get_args(hint)[0]
            continue
        if origin is typing_extensions.Annotated:
            for meta in hint.__metadata__:
                alias = getattr(meta, "alias", None)
                if isinstance(alias, str) and alias:
                    return alias
        return None


def _discriminator(dicts: list[Any]) -> str | None:
    """A key every TypedDict of `dicts` requires, as a literal whose values differ from one
    member to the next (such as `role` or `type`), or None."""
    common = frozenset.intersection(*(d.__required_keys__ for d in dicts))
    for key in sorted(common):
        seen: set[Any] = set()
        ok = True
        for d in dicts:
            hint = d.__annotations__[key]
            while typing_extensions.get_origin(hint) in _WRAPPERS:
                hint = typing_extensions.get_args(hint)[0]
            if typing_extensions.get_origin(hint) is not typing_extensions.Literal:
                ok = False
                break
            values = set(typing_extensions.get_args(hint))
            if values & seen:
                ok = False
                break
            seen |= values
        if ok:
            return key
    return None


class Validators:
    """The validators of the request bodies, built once (building them takes a second or two)."""

    def __init__(self) -> None:
        from anthropic.types import message_create_params as anthropic_params
        from openai.types.chat import completion_create_params as openai_params

        strict = StrictTypes()
        self.routes = {
            "chat/completions": {
                False: pydantic.TypeAdapter(
                    strict(openai_params.CompletionCreateParamsNonStreaming)
                ),
                True: pydantic.TypeAdapter(strict(openai_params.CompletionCreateParamsStreaming)),
            },
            "messages": {
                False: pydantic.TypeAdapter(
                    strict(anthropic_params.MessageCreateParamsNonStreaming)
                ),
                True: pydantic.TypeAdapter(strict(anthropic_params.MessageCreateParamsStreaming)),
            },
        }

    def route(self, method: str, path: str) -> str | None:
        """Which body type a request is checked against, or None for one passed as it is."""
        if method != "POST":
            return None
        for suffix in self.routes:
            if path.rstrip("/").endswith("/" + suffix):
                return suffix
        return None

    def check(self, route: str, raw: bytes) -> str | None:
        """None when `raw` is a valid body for `route`, else what is wrong with it."""
        try:
            body = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            return f"the body is not JSON: {error}"
        if not isinstance(body, dict):
            return f"the body is not a JSON object but {type(body).__name__}"
        streaming = body.get("stream") is True
        try:
            # Strict: "64" is not an integer, as the APIs see it.
            self.routes[route][streaming].validate_json(raw, strict=True)
        except pydantic.ValidationError as error:
            return describe(error, body)
        return None


def describe(error: pydantic.ValidationError, body: Any) -> str:
    """pydantic's errors, each with its path (`messages.1.tool_calls.0.id`), those about the
    union members that fit worst left out (see `prune`)."""
    return summary(problems(error, body))


def problems(error: pydantic.ValidationError, body: Any) -> list[tuple[tuple, str]]:
    """pydantic's errors as (path, message), pruned."""
    out = []
    for item in prune(error.errors(include_url=False), body):
        message = item["msg"]
        if item["type"] in ("extra_forbidden", "literal_error", "union_tag_invalid"):
            message += f" (got {json.dumps(item.get('input'), default=str)[:200]})"
        out.append((tuple(item["loc"]), message))
    return out


def summary(found: list[tuple[tuple, str]]) -> str:
    """`N validation error(s): path: message; path: message`."""
    lines = [f"{'.'.join(_short(part) for part in loc) or '(body)'}: {msg}" for loc, msg in found]
    return f"{len(lines)} validation error(s): " + "; ".join(lines)


def _short(part: Any) -> str:
    """A path part; a long union label (`list[tagged-union[TextBlockParam,...]]`) cut short."""
    text = str(part)
    if len(text) > 40 and "[" in text:
        return text[: text.index("[")] + "[...]"
    return text


def prune(errors: list[dict[str, Any]], body: Any) -> list[dict[str, Any]]:
    """For a value that fits no member of a union, pydantic reports every member's errors (a
    tool that fits no tool type: a hundred lines). Keeps, at each union, only the members
    that fit best, by the errors' `_cost`.

    A union member shows in an error's path as a label that is not a key or index of the
    body there (`ToolParam`, `str`, the tag of a discriminated union)."""
    labelled = [(item, _labels(item["loc"], body)) for item in errors]
    return [item for item, _ in _prune(labelled, 0)]


def _cost(item: dict[str, Any], label: int) -> int:
    """How much an error says a value is not meant as that union member: much for a wrong
    literal, or for a value of the wrong kind altogether (a number where the member is a
    string); little for anything deeper."""
    if item["type"] == "literal_error":
        return 10
    if label == len(item["loc"]) - 1 and item["type"].endswith("_type"):
        return 10
    return 1


def _labels(loc: tuple[Any, ...], body: Any) -> list[int]:
    positions, value = [], body
    for index, part in enumerate(loc):
        if isinstance(value, dict) and isinstance(part, str) and part in value:
            value = value[part]
        elif isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
            value = value[part]
        else:
            positions.append(index)
    return positions


def _prune(labelled: list[tuple[dict, list[int]]], depth: int) -> list[tuple[dict, list[int]]]:
    kept, unions = [], {}
    for item, labels in labelled:
        if len(labels) <= depth:
            kept.append((item, labels))
            continue
        at = labels[depth]
        unions.setdefault(tuple(item["loc"][:at]), []).append((item, labels))
    for members in unions.values():
        by_member: dict[Any, list] = {}
        for item, labels in members:
            by_member.setdefault(item["loc"][labels[depth]], []).append((item, labels))
        cost = {
            member: sum(_cost(item, labels[depth]) for item, labels in group)
            for member, group in by_member.items()
        }
        best = min(cost.values())
        for member, group in by_member.items():
            if cost[member] == best:
                kept.extend(_prune(group, depth + 1))
    order = {id(item): index for index, (item, _) in enumerate(labelled)}
    return sorted(kept, key=lambda pair: order[id(pair[0])])


# ---------------------------------------------------------------------------------------------
# The proxy.


def refusal(route: str, message: str) -> dict[str, Any]:
    """The 400 body of a refused request, as the provider words one."""
    if route == "messages":
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    }


class RejectionLog:
    """Appends each refused body, with why, to a file: one JSON object a line."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.lock = threading.Lock()
        if path:
            open(path, "a").close()

    def add(self, method: str, target: str, error: str, raw: bytes) -> None:
        if not self.path:
            return
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        entry = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "request": f"{method} {target}",
            "error": error,
            "body": body,
        }
        with self.lock:
            with open(self.path, "a", encoding="utf-8") as log:
                log.write(json.dumps(entry, ensure_ascii=False) + "\n")


class Proxy(http.server.BaseHTTPRequestHandler):
    # HTTP/1.1, so that clients keep their connections: every answer has a length or is chunked.
    protocol_version = "HTTP/1.1"
    server: "Server"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the tests' output matters
        if self.server.verbose:
            super().log_message(format, *args)

    def do_GET(self) -> None:
        if urllib.parse.urlsplit(self.path).path == "/_proxy/requests":
            self.requests_seen()
            return
        self.forward()

    def requests_seen(self) -> None:
        """The validated bodies of one conversation (its `X-Fakellm-Conversation-Id`), oldest
        first: what a test reads to see what its client sent."""
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        wanted = (query.get("conversation") or [""])[0]
        with self.server.seen_lock:
            bodies = [body for conversation, body in self.server.seen if conversation == wanted]
        self.answer(200, {"requests": bodies})

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return bytes(body)
                body += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def answer(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def forward(self) -> None:
        raw = self.read_body()
        path = urllib.parse.urlsplit(self.path).path
        route = self.server.validators.route(self.command, path)
        if route is not None:
            error = self.server.validators.check(route, raw)
            if error is not None:
                self.server.rejections.add(self.command, self.path, error, raw)
                self.answer(400, refusal(route, error))
                return
            self.server.remember(self.headers.get("X-Fakellm-Conversation-Id", ""), raw)

        upstream = http.client.HTTPConnection(
            self.server.upstream.hostname,
            self.server.upstream.port or 80,
            timeout=self.server.timeout_s,
        )
        try:
            headers = {
                name: value
                for name, value in self.headers.items()
                if name.lower() not in HOP_BY_HOP
                and name.lower() not in ("host", "content-length")
            }
            headers["Host"] = self.server.upstream.netloc
            if raw or self.command in ("POST", "PUT", "PATCH"):
                headers["Content-Length"] = str(len(raw))
            try:
                upstream.request(self.command, self.path, body=raw or None, headers=headers)
                response = upstream.getresponse()
            except OSError as error:
                self.answer(
                    502,
                    {"error": {"type": "api_error", "message": f"upstream unreachable: {error}"}},
                )
                return
            self.relay(response)
        finally:
            upstream.close()

    def relay(self, response: http.client.HTTPResponse) -> None:
        """Passes the upstream answer on as it arrives: with its length when it has one, else
        chunked, each piece written and flushed as soon as it is read."""
        self.send_response_only(response.status, response.reason)
        length = response.getheader("Content-Length")
        for name, value in response.getheaders():
            if name.lower() in HOP_BY_HOP or name.lower() in ("content-length", "date", "server"):
                continue
            self.send_header(name, value)
        self.send_header("Date", self.date_time_string())
        chunked = length is None and self.command != "HEAD" and response.status not in (204, 304)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif length is not None:
            self.send_header("Content-Length", length)
        self.end_headers()
        if self.command == "HEAD":
            return
        try:
            while True:
                piece = response.read1(65536)
                if not piece:
                    break
                if chunked:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                else:
                    self.wfile.write(piece)
                self.wfile.flush()
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, upstream: str, rejections: str | None, verbose: bool) -> None:
        self.validators = Validators()
        self.upstream = urllib.parse.urlsplit(upstream)
        if self.upstream.scheme != "http" or not self.upstream.hostname:
            raise SystemExit(f"--upstream must be an http:// URL, not {upstream!r}")
        self.rejections = RejectionLog(rejections)
        self.verbose = verbose
        self.timeout_s = 120.0
        # The last validated bodies, with their conversation ids, for `GET /_proxy/requests`.
        self.seen: collections.deque[tuple[str, Any]] = collections.deque(maxlen=2000)
        self.seen_lock = threading.Lock()
        super().__init__(("127.0.0.1", port), Proxy)

    def remember(self, conversation: str, raw: bytes) -> None:
        try:
            body = json.loads(raw)
        except ValueError:
            return
        with self.seen_lock:
            self.seen.append((conversation, body))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="such as http://127.0.0.1:8000")
    parser.add_argument("--rejections", help="file the refused bodies are appended to")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args()
    server = Server(args.port, args.upstream, args.rejections, args.verbose)
    print(
        f"validate_proxy on http://127.0.0.1:{args.port} -> {args.upstream}",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
