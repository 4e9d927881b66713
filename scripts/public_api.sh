#!/usr/bin/env bash
# The public API of tool-sdk, every feature on, one item a line (scripts/public_api.py reads it
# from rustdoc's JSON output), compared with tool-sdk/public-api.txt: a change to the API is a
# change to that file, seen in review. `--bless` writes the file after an intended change.
# rustdoc's JSON output is unstable: RUSTC_BOOTSTRAP lets the stable toolchain write it.
set -euo pipefail
cd "$(dirname "$0")/.."

RUSTC_BOOTSTRAP=1 cargo rustdoc --quiet -p tool-sdk --lib --all-features \
  -- -Z unstable-options --output-format json
target="${CARGO_TARGET_DIR:-target}"
python3 scripts/public_api.py "$target/doc/tool_sdk.json" > "$target/public-api.txt"
if [ "${1:-}" = "--bless" ]; then
  cp "$target/public-api.txt" tool-sdk/public-api.txt
  echo "wrote tool-sdk/public-api.txt ($(wc -l < tool-sdk/public-api.txt) items)"
  exit 0
fi
if ! diff -u tool-sdk/public-api.txt "$target/public-api.txt"; then
  echo "error: the public API of tool-sdk is not what tool-sdk/public-api.txt says (above: - the file, + the code); if the change is meant, run scripts/public_api.sh --bless and commit the file" >&2
  exit 1
fi
echo "the public API matches tool-sdk/public-api.txt ($(wc -l < "$target/public-api.txt") items)"
