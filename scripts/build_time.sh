#!/usr/bin/env bash
# What depending on tool-sdk costs a first build, beside its peers: a minimal binary that
# depends on tool-sdk with its default features, on rig-core with its defaults, and on rmcp
# with the features an MCP server with tools needs, each built in the debug profile from an
# empty target directory; then what each tool-sdk feature adds to the default's build (the
# default's target directory copied, the feature turned on, built again).
#
# For each build: wall seconds, CPU seconds (user + system of cargo and every rustc it ran,
# which other work on the machine moves far less than it moves the wall clock) and the crates
# compiled. Rounds run the builds in turn, in alternating order, and the table gives the median
# and the range of each.
#
# Usage: scripts/build_time.sh [ROUNDS]        (default 2)
#   BUILD_TIME_FEATURES="openai sqlite"        the features to price (default: every feature
#                                              that brings a crate)
# Needs cargo and the network or a warm cargo cache: crates are downloaded before anything is
# timed. tool-sdk is built with the versions the repository's Cargo.lock pins; rig-core and rmcp
# with the newest their version requirement allows. Everything it builds is removed on exit.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
repo="$PWD"

rounds="${1:-2}"
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: ROUNDS must be a positive integer, not '$rounds'" >&2
  exit 1
fi
read -ra features <<<"${BUILD_TIME_FEATURES:-openai anthropic gemini sqlite postgres dynamic mcp mcp-http approvals chrono uuid url}"

RIG_VERSION=0.44
RMCP_VERSION=3.11

work="$(mktemp -d "${TMPDIR:-/tmp}/build_time.XXXXXX")"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- The probes: one binary package each, a workspace of its own ----------------------------

probe() {
  local name="$1" dependency="$2" use="$3"
  mkdir -p "$work/$name/src"
  cat >"$work/$name/Cargo.toml" <<EOF
[package]
name = "probe-$name"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
$dependency

[workspace]
EOF
  # The binary uses the crate, so that it is linked in as a program would have it.
  printf 'use %s as _;\n\nfn main() {}\n' "$use" >"$work/$name/src/main.rs"
}
probe tool-sdk "tool-sdk = { path = \"$repo/tool-sdk\" }" tool_sdk
cp Cargo.lock "$work/tool-sdk/Cargo.lock"
probe rig "rig-core = \"$RIG_VERSION\"" rig_core
probe rmcp "rmcp = { version = \"$RMCP_VERSION\", features = [\"server\", \"macros\"] }" rmcp

for name in tool-sdk rig rmcp; do
  echo "fetching the crates of $name"
  (cd "$work/$name" && cargo fetch --quiet)
done
rig_version="$(cd "$work/rig" && cargo tree --depth 0 -p rig-core | awk '{ print $2 }')"
rmcp_version="$(cd "$work/rmcp" && cargo tree --depth 0 -p rmcp | awk '{ print $2 }')"

# --- Timing ---------------------------------------------------------------------------------

results="$work/results.tsv"
: >"$results"

# build LABEL PROBE TARGET_DIR [cargo arguments...]: one build, timed, its crates counted; a
# line of progress, and a row of results.
build() {
  local label="$1" name="$2" target="$3"
  shift 3
  local messages="$work/messages.json" started_ns ended_ns
  local before after
  cpu_seconds
  before="$(<"$work/cpu.txt")"
  started_ns="$(date +%s%N)"
  (cd "$work/$name" && CARGO_TARGET_DIR="$target" cargo build --quiet --message-format=json "$@") \
    >"$messages"
  ended_ns="$(date +%s%N)"
  cpu_seconds
  after="$(<"$work/cpu.txt")"
  local wall cpu crates
  wall="$(awk -v a="$started_ns" -v b="$ended_ns" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')"
  cpu="$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.1f", b - a }')"
  # Crates compiled: packages with a compiled artifact (a build script's run is not one), the
  # probe itself left out.
  crates="$(python3 -c '
import json, sys
packages = set()
for line in open(sys.argv[1]):
    message = json.loads(line)
    if message.get("reason") != "compiler-artifact" or message.get("fresh"):
        continue
    if message["target"]["kind"] == ["custom-build"] or message["target"]["name"].startswith("probe-"):
        continue
    packages.add(message["package_id"])
print(len(packages))
' "$messages")"
  printf '%s\t%s\t%s\t%s\n' "$label" "$wall" "$cpu" "$crates" >>"$results"
  printf '  %-28s %7s s wall %7s s CPU %5s crates\n' "$label" "$wall" "$cpu" "$crates"
}

# Writes to cpu.txt the user + system seconds of every child of this shell that has ended
# (bash's `times`, whose second line is the children's). It must run in this shell: in the
# subshell of a `$(...)`, `times` would count that subshell's own children only.
cpu_seconds() {
  times >"$work/times.txt"
  awk 'NR == 2 {
    split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%.2f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$work/times.txt" >"$work/cpu.txt"
}

peers=(tool-sdk rig rmcp)
for round in $(seq 1 "$rounds"); do
  echo "round $round of $rounds"
  order=("${peers[@]}")
  if ((round % 2 == 0)); then
    order=(rmcp rig tool-sdk)
  fi
  for name in "${order[@]}"; do
    target="$work/target-$name"
    rm -rf "$target"
    case "$name" in
      tool-sdk) build "tool-sdk (default)" tool-sdk "$target" ;;
      rig) build "rig-core $rig_version (default)" rig "$target" ;;
      rmcp) build "rmcp $rmcp_version (server, macros)" rmcp "$target" ;;
    esac
  done
  # Each feature on top of the default's build: what it adds.
  for feature in "${features[@]}"; do
    target="$work/target-feature"
    rm -rf "$target"
    cp -a "$work/target-tool-sdk" "$target"
    build "+ $feature" tool-sdk "$target" --features "tool-sdk/$feature"
  done
  rm -rf "$work/target-feature"
done

# --- The table ------------------------------------------------------------------------------

echo
echo "Debug builds, $rounds round(s), on $(nproc) core(s); median (range). Rows with + are"
echo "what the feature adds to the build of tool-sdk's default."
echo
echo "| build | wall s | CPU s | crates compiled |"
echo "|---|---:|---:|---:|"
python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, wall, cpu, crates = line.rstrip("\n").split("\t")
    rows.setdefault(label, []).append((float(wall), float(cpu), int(crates)))
def cell(values, digits=1):
    median = statistics.median(values)
    if len(values) == 1 or min(values) == max(values):
        return f"{median:.{digits}f}"
    return f"{median:.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"
for label, runs in rows.items():
    walls, cpus, crates = zip(*runs)
    print(f"| {label} | {cell(walls)} | {cell(cpus)} | {cell(crates, 0)} |")
PY
