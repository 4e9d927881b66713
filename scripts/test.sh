#!/usr/bin/env bash
# Runs every test of the workspace: unit, integration, trybuild UI suites, real-data (BFCL),
# real-server (fakellm) and doc tests. Works on a fresh machine with a Rust toolchain and
# python3 (with venv); installs whatever else it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

# The BFCL corpus lives beside the checkout (../shared/corpora/bfcl) unless told otherwise.
if [ -z "${TOOL_SDK_BFCL_DIR:-}" ] && [ ! -d ../shared/corpora/bfcl ]; then
  echo "error: the BFCL corpus is not at ../shared/corpora/bfcl; set TOOL_SDK_BFCL_DIR" >&2
  exit 1
fi

# Python tools of the tests, pinned, in .venv: fakellm (an OpenAI-compatible server answering
# from YAML rules), the openai package, and the mcp package (the reference MCP client, and
# FastMCP for a server the MCP client tests consume).
FAKELLM_VERSION=0.3.5
OPENAI_VERSION=3.51.0
MCP_VERSION=2.3.0
VENV="$PWD/.venv"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" - "$FAKELLM_VERSION" "$OPENAI_VERSION" "$MCP_VERSION" 2>/dev/null <<'EOF'
import sys
from importlib.metadata import version
wanted = tuple(sys.argv[1:4])
sys.exit(0 if (version("fakellm"), version("openai"), version("mcp")) == wanted else 1)
EOF
then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "fakellm==$FAKELLM_VERSION" "openai==$OPENAI_VERSION" "mcp==$MCP_VERSION"
fi
export TOOL_SDK_PYTHON="$VENV/bin/python"

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

# Node.js 20 and npm: the TypeScript SDK's client and the reference server
# `@modelcontextprotocol/server-everything`, pinned in tests/package.json and its lock, go to
# tests/node_modules; the MCP inspector tests run `npx --yes @modelcontextprotocol/inspector@0.15.0`.
# Without npm those tests fail, saying so; said here too, before the long build.
if command -v npm >/dev/null 2>&1; then
  (cd tests && npm ci --no-audit --no-fund --loglevel=error)
else
  echo "warning: npm is not on the PATH: the MCP tests with Node.js clients and servers will fail (install Node.js 20 and npm)" >&2
fi

# One fakellm server per rule file tests/fakellm/NAME.yaml, on a free port of 127.0.0.1, its
# base URL in TOOL_SDK_FAKELLM_URL_<NAME> (TOOL_SDK_FAKELLM_URL for openai.yaml); all are
# stopped on exit.
FAKELLM_PIDS=()
FAKELLM_LOGS="$(mktemp -d)"
stop_fakellm() {
  for pid in ${FAKELLM_PIDS[@]+"${FAKELLM_PIDS[@]}"}; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$FAKELLM_LOGS"
}
# On exit, stop the fakellm servers and, once scripts/postgres.sh has defined it, PostgreSQL.
cleanup() {
  stop_fakellm
  if declare -F stop_postgres >/dev/null; then
    stop_postgres
  fi
}
trap cleanup EXIT

free_port() {
  "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

for rules in tests/fakellm/*.yaml; do
  [ -e "$rules" ] || continue
  name="$(basename "$rules" .yaml)"
  port="$(free_port)"
  log="$FAKELLM_LOGS/$name.log"
  "$VENV/bin/fakellm" serve --host 127.0.0.1 --port "$port" --config "$rules" >"$log" 2>&1 &
  FAKELLM_PIDS+=("$!")
  url="http://127.0.0.1:$port/v1"
  # Ready when it answers its stats endpoint (about a second); give up after 30 s.
  if ! "$VENV/bin/python" - "http://127.0.0.1:$port/_fakellm/stats" <<'EOF'
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
    echo "error: fakellm did not start for $rules:" >&2
    cat "$log" >&2
    exit 1
  fi
  var="TOOL_SDK_FAKELLM_URL_$(echo "$name" | tr '[:lower:]-' '[:upper:]_')"
  export "$var=$url"
  if [ "$name" = openai ]; then
    export TOOL_SDK_FAKELLM_URL="$url"
  fi
  echo "fakellm $FAKELLM_VERSION serving $rules at $url"
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
cargo test --workspace --no-fail-fast || status=$?
if [ -f "$UI_SUMMARY" ]; then
  cat "$UI_SUMMARY"
else
  echo "error: the UI suite did not run (no $UI_SUMMARY)" >&2
  status=1
fi
exit "$status"
