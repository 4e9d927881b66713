"""An OTLP/HTTP trace receiver that keeps the spans it is sent, for tests to read back.

    python otlp_receiver.py --port P [--host 127.0.0.1]

Serves:

  POST /v1/traces   OTLP/HTTP with a protobuf body (`Content-Type: application/x-protobuf`), as an
                    OpenTelemetry Collector's OTLP receiver takes it: the body is decoded with the
                    official `opentelemetry-proto` package's `ExportTraceServiceRequest`, and the
                    answer is an `ExportTraceServiceResponse`. A body that does not decode, or
                    comes with another content type or an encoding, is answered 400 or 415, and
                    nothing of it is kept.
  GET  /spans       every span received so far, as a JSON array, oldest first: its name, kind,
                    ids, status, attributes (values as OTLP typed them), its resource's
                    attributes and its instrumentation scope
  GET  /health      "ok"

Not a collector: it keeps what it is sent, in memory, for as long as it runs.
"""

from __future__ import annotations

import argparse
import http.server
import json
import socketserver
import sys
import threading
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

sys.dont_write_bytecode = True

# The most a body may be: far more than a test's batch.
MAX_BODY = 16 * 1024 * 1024


def any_value(value: AnyValue) -> Any:
    """An OTLP attribute value as JSON: strings, booleans, numbers, arrays and maps as such,
    bytes as hex."""
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [any_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return attributes(value.kvlist_value.values)
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return getattr(value, kind)


def attributes(pairs: list[KeyValue]) -> dict[str, Any]:
    return {pair.key: any_value(pair.value) for pair in pairs}


def span_json(span: Span, resource: dict[str, Any], scope: str) -> dict[str, Any]:
    return {
        "name": span.name,
        "kind": Span.SpanKind.Name(span.kind),
        "trace_id": span.trace_id.hex(),
        "span_id": span.span_id.hex(),
        "parent_span_id": span.parent_span_id.hex(),
        "status": {
            "code": Status.StatusCode.Name(span.status.code),
            "message": span.status.message,
        },
        "attributes": attributes(span.attributes),
        "events": [
            {"name": event.name, "attributes": attributes(event.attributes)}
            for event in span.events
        ],
        "resource": resource,
        "scope": scope,
    }


class Spans:
    """The spans received, shared by the handler threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spans: list[dict[str, Any]] = []

    def add(self, request: ExportTraceServiceRequest) -> None:
        received = []
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                scope = scope_spans.scope.name
                received.extend(span_json(span, resource, scope) for span in scope_spans.spans)
        with self._lock:
            self._spans.extend(received)

    def json(self) -> bytes:
        with self._lock:
            return json.dumps(self._spans).encode()


SPANS = Spans()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write("%s %s\n" % (self.address_string(), format % args))

    def answer(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def refuse(self, status: int, why: str) -> None:
        sys.stderr.write(f"refused: {why}\n")
        self.answer(status, why.encode(), "text/plain; charset=utf-8")

    def do_GET(self) -> None:
        if self.path == "/spans":
            self.answer(200, SPANS.json(), "application/json")
        elif self.path == "/health":
            self.answer(200, b"ok", "text/plain")
        else:
            self.refuse(404, f"no such path: {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.close_connection = True
            return self.refuse(413, f"a body of {length} bytes")
        body = self.rfile.read(length)
        if self.path != "/v1/traces":
            return self.refuse(404, f"no such path: {self.path}")
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if content_type != "application/x-protobuf":
            return self.refuse(415, f"OTLP/HTTP protobuf only, not `{content_type}`")
        encoding = self.headers.get("Content-Encoding")
        if encoding not in (None, "", "identity"):
            return self.refuse(415, f"no content encoding, not `{encoding}`")
        request = ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except DecodeError as error:
            return self.refuse(400, f"not an ExportTraceServiceRequest: {error}")
        SPANS.add(request)
        response = ExportTraceServiceResponse().SerializeToString()
        self.answer(200, response, "application/x-protobuf")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    server = Server((args.host, args.port), Handler)
    print(f"OTLP/HTTP receiver at http://{args.host}:{args.port}/v1/traces", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
