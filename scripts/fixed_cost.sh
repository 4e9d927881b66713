#!/usr/bin/env bash
# What a crate pays for using `#[tool]` at all: the macro's fixed cost, beside plain code and
# rig's macro. In a temporary Cargo workspace it writes the same one tool, `add(a, b)`, five
# ways:
#
#   plain    the function alone;
#   derive   the function and its argument struct deriving serde's `Deserialize` and schemars'
#            `JsonSchema`, its schema taken with `schema_for!` (no handler: compile_cost.sh's
#            baseline);
#   hand     a hand-written `tool_sdk::Tool` for it, over that struct (serde_json decodes and
#            encodes, the definition built once);
#   sdk      `#[tool]`;
#   rig      rig-core's `#[rig_tool]` (rig-core from crates.io, fetched by cargo here);
#
# each as a library (`<way>_lib`) and as a binary that uses the tool as a program would
# (`<way>_bin`: registered and called once, its definition listed; for rig, through its
# object-safe `ErasedTool`, as its runtime holds tools). The binary is what keeps the figures
# honest: code a library leaves to its users (generic or `#[inline]`) is compiled there.
#
# For each crate, with its dependencies built: the instructions rustc executes for a build of
# the crate after `cargo clean -p` (valgrind's cachegrind, macro expansion included, the same on
# every run), and the wall-clock and CPU seconds of that `cargo build -p`, in ROUNDS rounds, the
# crates taken in turn, in alternating order.
#
# Usage: scripts/fixed_cost.sh [ROUNDS]           (default 5)
#   FIXED_COST_BEFORE=path  also measure `#[tool]` with the tool-sdk of another checkout of the
#                         repository (`before`: the code before a change, e.g. made with `git
#                         worktree add`), in the same rounds, in a workspace and target
#                         directory of its own
#   FIXED_COST_DIR=path   work there and keep it (its target directory is reused by the next
#                         run); by default a temporary directory, removed on exit
#   FIXED_COST_COUNT=0    skip the instruction count
# Needs cargo and the network or a warm cargo cache; valgrind is installed when missing and
# running as root (scripts/cost_helpers.sh).
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
repo="$PWD"
# shellcheck source=scripts/cost_helpers.sh
source scripts/cost_helpers.sh

rounds="${1:-5}"
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: ROUNDS must be a positive integer, not '$rounds'" >&2
  exit 1
fi

RIG_VERSION=0.44

if [ -n "${FIXED_COST_DIR:-}" ]; then
  mkdir -p "$FIXED_COST_DIR"
  work="$(cd "$FIXED_COST_DIR" && pwd)"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/fixed_cost.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi
trap 'exit 130' INT
trap 'exit 143' TERM
export CARGO_TARGET_DIR="$work/target"

ways=(plain derive hand sdk rig)
forms=(lib bin)
before="${FIXED_COST_BEFORE:-}"
if [ -n "$before" ]; then
  before="$(cd "$before" && pwd)"
  [ -f "$before/tool-sdk/Cargo.toml" ] ||
    { echo "error: $before is not a checkout of the repository" >&2; exit 1; }
  ways+=(before)
fi

# The workspace directory of CRATE: `before`'s crates have one of their own (two packages named
# tool-sdk cannot share a lock file), with its own target directory.
crate_dir() {
  case $1 in
    before_*) echo "$work/before" ;;
    *) echo "$work" ;;
  esac
}

# Runs cargo with ARGS for CRATE, in its workspace and target directory.
cargo_for() {
  local crate=$1 dir
  shift
  dir="$(crate_dir "$crate")"
  (cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo "$@")
}

# --- The generated workspace ---------------------------------------------------------------

dep_serde="$(workspace_dep serde)"
dep_serde_json="$(workspace_dep serde_json)"
dep_schemars="$(workspace_dep schemars)"

members=""
for way in "${ways[@]}"; do
  [ "$way" = before ] && continue
  for form in "${forms[@]}"; do
    members+="${members:+, }\"${way}_$form\""
  done
done
# default-features = false, as compile_cost.sh: only the macro and what its output calls matter.
cat >"$work/Cargo.toml" <<EOF
[workspace]
resolver = "2"
members = [$members]

[workspace.dependencies]
tool-sdk = { path = "$repo/tool-sdk", default-features = false }
rig-core = "$RIG_VERSION"
$dep_serde
$dep_serde_json
$dep_schemars
EOF
# tool-sdk's dependencies at the versions the repository pins; cargo adds rig-core's.
cp Cargo.lock "$work/Cargo.lock"
if [ -n "$before" ]; then
  mkdir -p "$work/before"
  cat >"$work/before/Cargo.toml" <<EOF
[workspace]
resolver = "2"
members = ["before_lib", "before_bin"]

[workspace.dependencies]
tool-sdk = { path = "$before/tool-sdk", default-features = false }
EOF
  cp "$before/Cargo.lock" "$work/before/Cargo.lock"
fi

# The dependencies of WAY's crates.
dependencies() {
  case $1 in
    plain) ;;
    derive) printf '%s\n' serde schemars serde_json ;;
    hand) printf '%s\n' tool-sdk serde schemars serde_json ;;
    sdk | before) printf '%s\n' tool-sdk ;;
    rig) printf '%s\n' rig-core ;;
  esac
}

# The tool, written WAY's way: the whole library, and the start of the binary.
tool_source() {
  case $1 in
    plain)
      cat <<'EOF'
/// Adds two integers.
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}
EOF
      ;;
    derive)
      cat <<'EOF'
// Undocumented, as `#[tool]`'s: a doc comment would be the schema's description.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// The first term.
    pub a: i64,
    /// The second term.
    pub b: i64,
}

/// Adds two integers.
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// The schema of `add`'s arguments.
pub fn schema() -> schemars::Schema {
    schemars::schema_for!(AddArgs)
}
EOF
      ;;
    hand)
      cat <<'EOF'
use std::sync::OnceLock;

use tool_sdk::define::{output_schema, parameters_schema, ToolDefinition, ToolFuture};
use tool_sdk::{Tool, ToolContext, ToolError, ToolOutput};

// Undocumented, as `#[tool]`'s: a doc comment would be the schema's description.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// The first term.
    pub a: i64,
    /// The second term.
    pub b: i64,
}

/// Adds two integers.
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// `add` as a tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct AddTool;

impl Tool for AddTool {
    fn definition(&self) -> &ToolDefinition {
        static DEFINITION: OnceLock<ToolDefinition> = OnceLock::new();
        DEFINITION.get_or_init(|| {
            ToolDefinition::new("add", "Adds two integers.", parameters_schema::<AddArgs>())
                .with_output_schema(Some(output_schema::<i64>()))
        })
    }

    fn call<'a>(&'a self, arguments: &'a str, _context: ToolContext<'a>) -> ToolFuture<'a> {
        let result = match serde_json::from_str::<AddArgs>(arguments) {
            Ok(args) => serde_json::to_string(&add(args.a, args.b))
                .map(ToolOutput::json)
                .map_err(|error| ToolError::failed("add", error)),
            Err(error) => Err(ToolError::MalformedArguments {
                tool: "add".to_owned(),
                message: error.to_string(),
            }),
        };
        ToolFuture::ready(result)
    }
}
EOF
      ;;
    sdk | before)
      cat <<'EOF'
use tool_sdk::tool;

/// Adds two integers.
#[tool]
pub fn add(
    /// The first term.
    a: i64,
    /// The second term.
    b: i64,
) -> i64 {
    a + b
}
EOF
      ;;
    rig)
      cat <<'EOF'
use rig_core::rig_tool;
use rig_core::tool::ToolExecutionError;

/// Adds two integers.
#[rig_tool]
pub fn add(
    /// The first term.
    a: i64,
    /// The second term.
    b: i64,
) -> Result<i64, ToolExecutionError> {
    Ok(a + b)
}
EOF
      ;;
  esac
}

# The binary's `main`: the tool used as a program uses it. Each prints the sum, 3.
main_source() {
  case $1 in
    plain)
      cat <<'EOF'
fn main() {
    println!("{}", add(1, 2));
}
EOF
      ;;
    derive)
      cat <<'EOF'
fn main() {
    println!("{}", serde_json::to_string(&schema()).unwrap_or_default());
    let args: AddArgs = serde_json::from_str(r#"{"a": 1, "b": 2}"#).expect("arguments");
    println!("{}", serde_json::to_string(&add(args.a, args.b)).unwrap_or_default());
}
EOF
      ;;
    hand | sdk | before)
      cat <<'EOF'
fn main() {
    let mut registry = tool_sdk::ToolRegistry::new();
    registry.register(AddTool).expect("one tool");
    for definition in registry.definitions() {
        println!("{} {}", definition.name, definition.parameters);
    }
    let output = block_on(registry.call("add", r#"{"a": 1, "b": 2}"#)).expect("a sum");
    println!("{}", output.content());
}
EOF
      ;;
    rig)
      cat <<'EOF'
fn main() {
    use rig_core::tool::{ErasedTool, ToolContext};
    let tools: Vec<Box<dyn ErasedTool>> = vec![Box::new(Add)];
    for tool in &tools {
        println!("{} {}", tool.name(), tool.parameters());
    }
    let mut context = ToolContext::default();
    let result = block_on(tools[0].execute(r#"{"a": 1, "b": 2}"#.to_owned(), &mut context));
    println!("{:?}", result.output().as_json());
}
EOF
      ;;
  esac
  # A future polled to its end on this thread: no runtime of either SDK, whose cost is not the
  # macro's.
  case $1 in
    hand | sdk | before | rig)
      cat <<'EOF'

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
    }
}
EOF
      ;;
  esac
}

for way in "${ways[@]}"; do
  for form in "${forms[@]}"; do
    crate="${way}_$form"
    dir="$(crate_dir "$crate")/$crate"
    mkdir -p "$dir/src"
    {
      cat <<EOF
[package]
name = "$crate"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
EOF
      for dependency in $(dependencies "$way"); do
        echo "$dependency.workspace = true"
      done
    } >"$dir/Cargo.toml"
    if [ "$form" = lib ]; then
      { echo "//! One tool, written the $way way (generated by scripts/fixed_cost.sh)."; echo
        tool_source "$way"; } >"$dir/src/lib.rs"
      rm -f "$dir/src/main.rs"
    else
      { echo "//! One tool, written the $way way, used (generated by scripts/fixed_cost.sh)."; echo
        tool_source "$way"; echo; main_source "$way"; } >"$dir/src/main.rs"
      rm -f "$dir/src/lib.rs"
    fi
  done
done
crates=()
for way in "${ways[@]}"; do
  for form in "${forms[@]}"; do
    crates+=("${way}_$form")
  done
done

cd "$work"

# --- Dependencies and the check, untimed ---------------------------------------------------

echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
# One crate at a time, as they are timed: a build of several would unify their dependencies'
# features, and the timed build of one alone would then compile some dependency again.
for crate in "${crates[@]}"; do
  echo "building $crate and its dependencies (not timed)"
  cargo_for "$crate" build --quiet -p "$crate"
done
rig_version="$(cargo tree --depth 0 -p rig-core 2>/dev/null | awk 'NR == 1 { print $2 }')"
for way in "${ways[@]}"; do
  printf 'checking %s_bin: ' "$way"
  output="$("$(crate_dir "${way}_bin")/target/debug/${way}_bin")"
  case "$output" in
    *3*) echo "${output//$'\n'/ | }" ;;
    *) echo "error: ${way}_bin did not print the sum: $output" >&2; exit 1 ;;
  esac
done

# --- Timing --------------------------------------------------------------------------------

results="$work/times.tsv"
: >"$results"
echo "timing: $rounds round(s), debug profile; $(rustc --version), $(nproc) cores"
echo "load before timing: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
  order=("${crates[@]}")
  if ((round % 2 == 0)); then
    order=()
    for ((i = ${#crates[@]} - 1; i >= 0; i--)); do
      order+=("${crates[$i]}")
    done
  fi
  for crate in "${order[@]}"; do
    cargo_for "$crate" clean --quiet -p "$crate"
    # bash's `time`: wall, user and system seconds of cargo and what it ran.
    { TIMEFORMAT='%R %U %S'; time cargo_for "$crate" build --quiet -p "$crate" 2>&3; } 3>&2 \
      2>"$work/time.txt"
    read -r wall user system <"$work/time.txt"
    printf '%s\t%s\t%s\n' "$crate" "$wall" "$(awk -v u="$user" -v s="$system" 'BEGIN { print u + s }')" \
      >>"$results"
  done
  echo "  round $round done (load $(cut -d' ' -f1 /proc/loadavg))"
done
echo "load after timing: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- Instructions --------------------------------------------------------------------------

counts="$work/instructions.tsv"
: >"$counts"
if [ "${FIXED_COST_COUNT:-1}" != 0 ]; then
  install_when_missing valgrind
  if command -v valgrind >/dev/null 2>&1; then
    write_count_wrapper "$work"
    for crate in "${crates[@]}"; do
      echo "  $crate: instructions of its build (cachegrind; slow)"
      cargo_for "$crate" clean --quiet -p "$crate"
      count="$(cd "$(crate_dir "$crate")" &&
        CARGO_TARGET_DIR="$(crate_dir "$crate")/target" count_build "$work" "$crate")"
      printf '%s\t%s\n' "$crate" "$count" >>"$counts"
    done
  else
    echo "valgrind not found: no instruction count"
  fi
fi

# --- The table ------------------------------------------------------------------------------

echo
echo "One tool, debug builds of the crate alone (dependencies built), $rounds round(s) on"
echo "$(nproc) core(s); rig-core $rig_version. Instructions: rustc's, cachegrind; seconds: median"
echo "(min) of the rounds, wall and CPU (cargo and what it ran). \"over plain\": instructions"
echo "beyond the plain function's, in the same form."
echo
python3 - "$results" "$counts" "${ways[@]}" <<'PY'
import statistics, sys
times, counts, ways = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = {}
for line in open(times):
    crate, wall, cpu = line.split("\t")
    runs.setdefault(crate, []).append((float(wall), float(cpu)))
instructions = {}
for line in open(counts):
    crate, count = line.split("\t")
    instructions[crate] = int(count)
label = {
    "plain": "plain function",
    "derive": "derive `Deserialize` + `JsonSchema`, `schema_for!`",
    "hand": "`tool_sdk::Tool` by hand",
    "sdk": "`#[tool]`",
    "before": "`#[tool]`, the code before",
    "rig": "rig `#[rig_tool]`",
}
def millions(crate):
    return f"{instructions[crate] / 1e6:.0f} M" if crate in instructions else "–"
def over(crate, base):
    if crate not in instructions or base not in instructions:
        return "–"
    return f"{(instructions[crate] - instructions[base]) / 1e6:+.0f} M"
def seconds(crate, column):
    values = [run[column] for run in runs.get(crate, [])]
    if not values:
        return "–"
    return f"{statistics.median(values):.2f} ({min(values):.2f})"
print("| crate | lib: instructions | over plain | wall s | CPU s "
      "| bin: instructions | over plain | wall s | CPU s |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for way in ways:
    cells = [label.get(way, way)]
    for form in ("lib", "bin"):
        crate = f"{way}_{form}"
        cells += [millions(crate), over(crate, f"plain_{form}"),
                  seconds(crate, 0), seconds(crate, 1)]
    print("| " + " | ".join(cells) + " |")
for form in ("lib", "bin"):
    sdk = instructions.get(f"sdk_{form}")
    for other in ("rig", "before"):
        count = instructions.get(f"{other}_{form}")
        if sdk and count:
            print(f"\n{form}: `#[tool]` / {other} instructions: {sdk / count:.2f}", end="")
print()
PY
