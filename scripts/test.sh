#!/usr/bin/env bash
# Runs every test of the workspace: unit, integration, trybuild UI suites, real-data (BFCL) and
# doc tests. Works on a fresh machine with a Rust toolchain; installs whatever else it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

# The BFCL corpus lives beside the checkout (../shared/corpora/bfcl) unless told otherwise.
if [ -z "${TOOL_SDK_BFCL_DIR:-}" ] && [ ! -d ../shared/corpora/bfcl ]; then
  echo "error: the BFCL corpus is not at ../shared/corpora/bfcl; set TOOL_SDK_BFCL_DIR" >&2
  exit 1
fi

# Snapshot mismatches fail instead of writing new snapshots.
export INSTA_UPDATE=no

cargo test --workspace --no-fail-fast
