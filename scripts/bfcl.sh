# Sourced by scripts/test.sh (bash, `set -euo pipefail`, after $VENV exists): the Berkeley
# Function Calling Leaderboard data, from its PyPI package `bfcl-eval` (Apache-2.0), pinned and
# hash-checked, unpacked once into .corpora/ (git-ignored; delete it to fetch again). Its folder
# goes to TOOL_SDK_BFCL_DIR, where tests/support/bfcl.rs reads it. A TOOL_SDK_BFCL_DIR set by
# the caller is used as is.

source scripts/pinned_wheel.sh

BFCL_VERSION=2026.3.23
BFCL_WHEEL_SHA256=3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a

if [ -z "${TOOL_SDK_BFCL_DIR:-}" ]; then
  TOOL_SDK_BFCL_DIR="$PWD/.corpora/bfcl-eval-$BFCL_VERSION"
  # The marker is written last: a fetch cut short is done again.
  if [ ! -f "$TOOL_SDK_BFCL_DIR/.complete" ]; then
    echo "fetching the BFCL corpus (bfcl-eval $BFCL_VERSION from PyPI, hash checked)"
    bfcl_download="$(mktemp -d)"
    download_pinned_wheel "$VENV/bin/python" bfcl-eval "$BFCL_VERSION" "$BFCL_WHEEL_SHA256" \
      "$bfcl_download"
    rm -rf "$TOOL_SDK_BFCL_DIR"
    # The wheel's bfcl_eval/data/ folder, as it is: question files, and possible_answer/.
    "$VENV/bin/python" - "$bfcl_download"/bfcl_eval-*.whl "$TOOL_SDK_BFCL_DIR" "$BFCL_VERSION" <<'PY'
import sys, zipfile
from pathlib import Path
wheel, target, version = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
prefix = "bfcl_eval/data/"
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            path = target / name[len(prefix):]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(archive.read(name))
(target / ".complete").write_text("bfcl-eval==" + version + "\n")
PY
    rm -rf "$bfcl_download"
  fi
fi
export TOOL_SDK_BFCL_DIR
echo "BFCL corpus: $TOOL_SDK_BFCL_DIR"
