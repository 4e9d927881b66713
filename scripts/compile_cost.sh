#!/usr/bin/env bash
# What `#[tool]` costs at compile time. In a temporary Cargo workspace it generates two crates
# with the same 200 functions in 10 modules: `with_macro` makes each a tool with `#[tool]`;
# `derive_only` describes each by hand, without the macro: an argument struct deriving serde's
# `Deserialize` and schemars' `JsonSchema`, its schema taken with `schema_for!`, no handler. It checks once that the 200 tools work, then times, in the debug profile, a clean
# build of each crate and an incremental rebuild after a doc-string edit in one module, and
# prints the medians and the ratios.
#
# Wall-clock time on a shared machine varies from run to run by more than the effect measured,
# so the script also counts, with valgrind's cachegrind, the instructions rustc executes for one
# incremental rebuild and one clean build of each crate: the same on every run.
#
# Usage: scripts/compile_cost.sh
#   RUNS=N                    runs per measurement (default 5)
#   COMPILE_COST_TIMER=loop   time with a bash loop even when hyperfine is there
#   COMPILE_COST_COUNT=0      skip the instruction count
#   COMPILE_COST_DIALECTS=openai_strict,anthropic_strict,gemini
#                             check with_macro's tools against these dialects when compiled
#                             (`dialects` of `[package.metadata.tool-sdk]` in its manifest; its
#                             types then derive `tool_sdk::describe::Described`)
# Needs cargo and the network or a warm cargo cache; uses hyperfine when present, installing
# the Debian package when missing and running as root (valgrind likewise). Everything it builds is
# removed on exit.
set -euo pipefail
# A failure inside $(...) stops the script too, rather than yielding a half-made figure.
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
repo="$PWD"
# shellcheck source=scripts/cost_helpers.sh
source scripts/cost_helpers.sh

runs="${RUNS:-5}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: RUNS must be a positive integer, not '$runs'" >&2
  exit 1
fi

# Sources and target dir both live here, so nothing is left behind (the target dir of the two
# crates and their dependencies is the bulk of it).
work="$(mktemp -d "${TMPDIR:-/tmp}/compile_cost.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# Without these, bash killed by Ctrl-C or `kill` would skip the EXIT trap.
trap 'exit 130' INT
trap 'exit 143' TERM
export CARGO_TARGET_DIR="$work/target"

# --- The generated workspace ---------------------------------------------------------------

dep_serde="$(workspace_dep serde)"
dep_serde_json="$(workspace_dep serde_json)"
dep_schemars="$(workspace_dep schemars)"
dep_tokio="$(workspace_dep tokio)"

# The dialects chosen, as with_macro's manifest lists them: `openai_strict,gemini` ->
# `"openai_strict", "gemini"` (`openai-strict` is read as `openai_strict`).
dialects="${COMPILE_COST_DIALECTS:-}"
listed=""
if [ -n "$dialects" ]; then
  IFS=, read -ra chosen <<<"$dialects"
  for dialect in "${chosen[@]}"; do
    listed+="${listed:+, }\"${dialect//-/_}\""
  done
fi

# One workspace, one target dir: serde, schemars and tool-sdk are built once, before timing.
# default-features = false leaves out tool-sdk's optional parts (HTTP client, SQLite): only the
# macro and what its output calls matter here. The repository's lock file pins the same versions.
cat >"$work/Cargo.toml" <<EOF
[workspace]
resolver = "2"
members = ["with_macro", "derive_only"]

[workspace.dependencies]
tool-sdk = { path = "$repo/tool-sdk", default-features = false }
$dep_serde
$dep_serde_json
$dep_schemars
$dep_tokio
EOF
cp Cargo.lock "$work/Cargo.lock"

for crate in with_macro derive_only; do
  mkdir -p "$work/$crate/src"
  cat >"$work/$crate/Cargo.toml" <<EOF
[package]
name = "$crate"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
tool-sdk.workspace = true
serde.workspace = true
serde_json.workspace = true
schemars.workspace = true
EOF
done
# The dialects are with_macro's own choice, in its manifest (derive_only has no tools).
if [ -n "$listed" ]; then
  cat >>"$work/with_macro/Cargo.toml" <<EOF

[package.metadata.tool-sdk]
dialects = [$listed]
EOF
fi
# Only the check (`cargo test`) needs these; a dev-dependency is not built by `cargo build`.
# tokio gets the features tool-sdk already turns on, so it is not built twice.
cat >>"$work/with_macro/Cargo.toml" <<'EOF'

[dev-dependencies]
tokio = { workspace = true, features = ["rt", "time"] }
derive_only = { path = "../derive_only" }
EOF

modules=(orders customers invoices shipments inventory payments reports users tickets calendar)
verbs=(fetch list create update delete search count archive sync export)
verbs_doc=(Fetches Lists Creates Updates Deletes Searches Counts Archives Syncs Exports)
tools_per_module=20
# The module whose doc string the incremental measurement edits: one in the middle.
edited_module=payments

# Parameter kinds: name, type, doc, a JSON value for the check, and whether `#[arg(default)]`
# may go on it.
kind_name=(query count ratio verbose note limit tags priority address)
kind_type=(String i64 f64 bool 'Option<String>' 'Option<i64>' 'Vec<String>'
  crate::types::Priority crate::types::Address)
kind_doc=(
  "The text to look for."
  "How many records to return, 1 to 100."
  "Fraction of the matches to keep, between 0 and 1."
  "Whether to include every field of each record."
  "A free-form note kept with the request."
  "Upper bound on the results; no bound when absent."
  "Tags the records must all carry."
  "How urgent the request is."
  "The address the records belong to."
)
kind_sample=('"lisbon"' 3 0.5 true '"rush order"' 7 '["red", "blue"]' '"high"'
  '{"street": "Rua Augusta 1", "city": "Lisbon"}')
kind_defaultable=(0 1 0 1 0 0 1 0 0)
kind_optional=(0 0 0 0 1 1 0 0 0)

# The parameters of tool I (0..199), as kind indexes: 2 to 5 distinct kinds, mixed by I.
tool_kinds() {
  local i=$1 k
  for ((k = 0; k < 2 + i % 4; k++)); do
    echo $(((i + 2 * k) % 9))
  done
}

# Whether parameter K of tool I carries `#[arg(default)]` (about one defaultable in two).
has_default() {
  local i=$1 k=$2 kind=$3
  [ "${kind_defaultable[$kind]}" = 1 ] && [ $(((i + k) % 2)) = 0 ]
}

tool_name() {
  local m=$1 j=$2
  printf '%s_%s_%02d' "${verbs[$((j % 10))]}" "${modules[$m]}" "$j"
}

# `fetch_orders_03` -> `FetchOrders03`, the macro's rule for the tool struct's name.
camel() {
  local part out=""
  local IFS=_
  for part in $1; do
    out+="${part^}"
  done
  echo "$out"
}

# The shared types, identical in both crates: an enum and a nested struct (described for the
# compile-time check in with_macro, when dialects are chosen).
write_types() {
  local crate=$1 described=""
  if [ -n "$dialects" ] && [ "$crate" = with_macro ]; then
    described=", tool_sdk::describe::Described"
  fi
  cat <<EOF
/// Types the tools take as parameters.
pub mod types {
    /// How urgent a request is.
    #[derive(Debug, Clone, Copy, serde::Deserialize, schemars::JsonSchema$described)]
    #[serde(rename_all = "lowercase")]
    pub enum Priority {
        /// Whenever there is time.
        Low,
        /// Today.
        Normal,
        /// Now.
        High,
    }

    /// A postal address.
    #[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema$described)]
    pub struct Address {
        /// Street and number.
        pub street: String,
        /// City.
        pub city: String,
        /// Postal code, when known.
        pub postal_code: Option<String>,
    }
}
EOF
}

# The doc string of parameter K (of kind KIND) of tool J in module M. The edited one: the first
# parameter of the edited module's first tool.
param_doc() {
  local m=$1 j=$2 k=$3 kind=$4
  if [ "${modules[$m]}" = "$edited_module" ] && [ "$j" = 0 ] && [ "$k" = 0 ]; then
    echo "${kind_doc[$kind]} (rev 0)"
  else
    echo "${kind_doc[$kind]}"
  fi
}

# One function's doc, signature and body. CRATE decides whether its parameters carry their
# docs and `#[arg(default)]` (with_macro) or leave them to the argument struct (derive_only).
write_function() {
  local crate=$1 m=$2 j=$3
  local i=$((m * tools_per_module + j))
  local name k=0 kind fields="" ret body
  name="$(tool_name "$m" "$j")"
  echo "/// ${verbs_doc[$((j % 10))]} the ${modules[$m]} records that match (tool $i)."
  if [ "$crate" = with_macro ]; then echo "#[tool]"; fi
  echo "pub fn $name("
  for kind in $(tool_kinds "$i"); do
    if [ "$crate" = with_macro ]; then
      echo "    /// $(param_doc "$m" "$j" "$k" "$kind")"
      if has_default "$i" "$k" "$kind"; then echo "    #[arg(default)]"; fi
    fi
    echo "    ${kind_name[$kind]}: ${kind_type[$kind]},"
    fields+=" {${kind_name[$kind]}:?}"
    k=$((k + 1))
  done
  case $((i % 3)) in
    0) ret="String" body="format!(\"$name:$fields\")" ;;
    1) ret="Result<String, String>"
       body="let summary = format!(\"$name:$fields\");
    if summary.is_empty() { Err(\"nothing to do\".to_owned()) } else { Ok(summary) }" ;;
    2) ret="i64" body="format!(\"$name:$fields\").len() as i64" ;;
  esac
  echo ") -> $ret {"
  echo "    $body"
  echo "}"
  echo
}

# derive_only's argument struct of one function: the fields, docs, defaults and
# `deny_unknown_fields` of the arguments `#[tool]` decodes for it.
write_args_struct() {
  local m=$1 j=$2 i=$(($1 * tools_per_module + $2))
  local k=0 kind
  echo "#[derive(serde::Deserialize, schemars::JsonSchema)]"
  echo "#[serde(deny_unknown_fields)]"
  echo "pub struct $(camel "$(tool_name "$m" "$j")")Args {"
  for kind in $(tool_kinds "$i"); do
    echo "    /// $(param_doc "$m" "$j" "$k" "$kind")"
    if has_default "$i" "$k" "$kind"; then echo "    #[serde(default)]"; fi
    echo "    pub ${kind_name[$kind]}: ${kind_type[$kind]},"
    k=$((k + 1))
  done
  echo "}"
  echo
}

write_module() {
  local crate=$1 m=$2 j
  if [ "$crate" = with_macro ]; then
    echo "//! Tools about ${modules[$m]}."
    echo
    echo "use tool_sdk::register::RegistryError;"
    echo "use tool_sdk::{tool, ToolRegistry};"
    echo
    for ((j = 0; j < tools_per_module; j++)); do
      write_function "$crate" "$m" "$j"
    done
    echo "/// Registers this module's tools."
    echo "pub fn register(registry: &mut ToolRegistry) -> Result<(), RegistryError> {"
    for ((j = 0; j < tools_per_module; j++)); do
      echo "    registry.register($(camel "$(tool_name "$m" "$j")")Tool)?;"
    done
    echo "    Ok(())"
    echo "}"
  else
    echo "//! Functions about ${modules[$m]}, with hand-written argument structs."
    echo
    for ((j = 0; j < tools_per_module; j++)); do
      write_args_struct "$m" "$j"
      write_function "$crate" "$m" "$j"
    done
    echo "/// This module's parameter schemas, by function name."
    echo "pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {"
    echo "    vec!["
    for ((j = 0; j < tools_per_module; j++)); do
      echo "        (\"$(tool_name "$m" "$j")\", schemars::schema_for!($(camel "$(tool_name "$m" "$j")")Args)),"
    done
    echo "    ]"
    echo "}"
  fi
}

# with_macro's check, run once by `cargo test`: all 200 register, each one answers a call
# with generated arguments (leaving out optional and defaulted ones in every other tool), and
# each schema equals derive_only's, so both crates describe the same parameters.
write_check() {
  local m j i k kind name args sep
  cat <<'EOF'

#[cfg(test)]
mod check {
    const CALLS: &[(&str, &str)] = &[
EOF
  for ((m = 0; m < ${#modules[@]}; m++)); do
    for ((j = 0; j < tools_per_module; j++)); do
      i=$((m * tools_per_module + j)) k=0 args="" sep=""
      name="$(tool_name "$m" "$j")"
      for kind in $(tool_kinds "$i"); do
        if [ $((i % 2)) = 0 ] || { [ "${kind_optional[$kind]}" = 0 ] && ! has_default "$i" "$k" "$kind"; }; then
          args+="$sep\"${kind_name[$kind]}\": ${kind_sample[$kind]}"
          sep=", "
        fi
        k=$((k + 1))
      done
      echo "        (\"$name\", r#\"{$args}\"#),"
    done
  done
  cat <<'EOF'
    ];

    #[test]
    fn every_tool_registers_answers_and_matches_derive_only() {
        let registry = super::register_all().expect("200 valid, distinct names");
        assert_eq!(registry.len(), CALLS.len());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        for (name, arguments) in CALLS {
            let output = runtime
                .block_on(registry.call(name, arguments))
                .unwrap_or_else(|error| panic!("{name}: {error}"));
            let content = output.content();
            assert!(
                content.starts_with(name) || content.parse::<i64>().is_ok(),
                "{name} answered {content:?}"
            );
        }
        let schemas = derive_only::register_all();
        assert_eq!(schemas.len(), registry.len());
        for ((name, schema), definition) in schemas.iter().zip(registry.definitions()) {
            assert_eq!(definition.name, *name);
            let mut expected = schema.as_value().clone();
            if let Some(object) = expected.as_object_mut() {
                object.remove("$schema");
                object.remove("title");
            }
            assert_eq!(definition.parameters, expected, "{name}");
        }
        println!("with_macro: {} tools registered, each called once", registry.len());
    }
}
EOF
}

write_lib() {
  local crate=$1 m
  if [ "$crate" = with_macro ]; then
    echo "//! 200 functions made tools with \`#[tool]\` (generated by scripts/compile_cost.sh)."
  else
    echo "//! The same 200 functions, described by hand-written argument structs (generated by"
    echo "//! scripts/compile_cost.sh)."
  fi
  echo
  for m in "${modules[@]}"; do
    echo "pub mod $m;"
  done
  echo
  write_types "$crate"
  echo
  if [ "$crate" = with_macro ]; then
    echo "/// A registry holding all 200 tools."
    echo "pub fn register_all() -> Result<tool_sdk::ToolRegistry, tool_sdk::register::RegistryError> {"
    echo "    let mut registry = tool_sdk::ToolRegistry::new();"
    for m in "${modules[@]}"; do
      echo "    $m::register(&mut registry)?;"
    done
    echo "    Ok(registry)"
    echo "}"
    write_check
  else
    echo "/// The parameter schemas of all 200 functions, by function name."
    echo "pub fn register_all() -> Vec<(&'static str, schemars::Schema)> {"
    echo "    let mut schemas = Vec::new();"
    for m in "${modules[@]}"; do
      echo "    schemas.extend($m::schemas());"
    done
    echo "    schemas"
    echo "}"
  fi
}

echo "generating with_macro and derive_only in $work"
for crate in with_macro derive_only; do
  write_lib "$crate" >"$work/$crate/src/lib.rs"
  for ((m = 0; m < ${#modules[@]}; m++)); do
    write_module "$crate" "$m" >"$work/$crate/src/${modules[$m]}.rs"
  done
done

cd "$work"

# --- Dependencies and the check, untimed ---------------------------------------------------

# Other jobs on the machine slow every figure: the load is shown at the start, before timing
# (where it includes this script's own dependency build) and after.
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "building the dependencies (not timed)"
cargo build --quiet -p with_macro -p derive_only
echo "checking that with_macro's tools work (not timed)"
cargo test --quiet -p with_macro --lib -- --nocapture

# --- Timing --------------------------------------------------------------------------------

timer=loop
if [ "${COMPILE_COST_TIMER:-}" != loop ]; then
  install_when_missing hyperfine
  if command -v hyperfine >/dev/null 2>&1; then
    timer=hyperfine
  fi
fi

# The incremental edit: a new text for one parameter's doc string in the edited module, so that
# parameter's description in the schema really changes, not only the file's mtime.
edit() {
  sed -i "s/(rev [0-9]*)/(rev $(date +%s%N))/" "$work/$1/src/$edited_module.rs"
}
export -f edit
export work edited_module

# Prints "MEDIAN MIN CPU" in seconds for RUNS runs of COMMAND, each after PREPARE (untimed),
# WARMUP untimed runs first. MEDIAN and MIN are wall-clock time; CPU is the mean user + system
# time of cargo and the compilers it ran, which does not depend on how many cores were free
# (a busy machine still inflates it, less).
measure() {
  local prepare=$1 command=$2 warmup=$3 r start end user system
  if [ "$timer" = hyperfine ]; then
    hyperfine --shell bash --style none --runs "$runs" --warmup "$warmup" \
      --prepare "$prepare" --export-csv "$work/measure.csv" "$command" >/dev/null
    # Columns: command,mean,stddev,median,user,system,min,max (user and system are means).
    awk -F, 'NR == 2 { printf "%.2f %.2f %.2f\n", $4, $7, $5 + $6 }' "$work/measure.csv"
  else
    for ((r = 0; r < warmup; r++)); do
      bash -c "$prepare"
      bash -c "$command" >/dev/null
    done
    : >"$work/measure.times"
    for ((r = 0; r < runs; r++)); do
      bash -c "$prepare"
      start="$(date +%s.%N)"
      # bash's `time` gives the CPU time; its report goes to the group's stderr, the file.
      { TIMEFORMAT='%U %S'; time bash -c "$command" >/dev/null 2>&3; } 3>&2 2>"$work/measure.cpu"
      end="$(date +%s.%N)"
      read -r user system <"$work/measure.cpu"
      awk -v s="$start" -v e="$end" -v u="$user" -v y="$system" \
        'BEGIN { print e - s, u + y }' >>"$work/measure.times"
    done
    sort -n "$work/measure.times" | awk '{ t[NR] = $1; cpu += $2 }
      END {
        median = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
        printf "%.2f %.2f %.2f\n", median, t[1], cpu / NR
      }'
  fi
}

echo "timing with $timer, $runs runs each, debug profile; $(rustc --version), $(nproc) cores"
echo "load before timing: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A median minimum cpu
for crate in with_macro derive_only; do
  echo "  $crate: clean build (cargo clean -p $crate; cargo build -p $crate)"
  result="$(measure "cargo clean --quiet -p $crate" "cargo build --quiet -p $crate" 0)"
  read -r "median[${crate}_clean]" "minimum[${crate}_clean]" "cpu[${crate}_clean]" <<<"$result"
done
# One untimed warm-up each: the first rebuild after a clean build is not a typical one.
for crate in with_macro derive_only; do
  echo "  $crate: incremental rebuild (doc string edited in src/$edited_module.rs; cargo build -p $crate)"
  result="$(measure "edit $crate" "cargo build --quiet -p $crate" 1)"
  read -r "median[${crate}_incr]" "minimum[${crate}_incr]" "cpu[${crate}_incr]" <<<"$result"
done
echo "load after timing: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- Instructions ------------------------------------------------------------------------

# One incremental rebuild of each crate with rustc (macro expansion included: proc macros run
# inside it) under cachegrind, through a RUSTC_WRAPPER that leaves every other crate alone.
declare -A instructions
if [ "${COMPILE_COST_COUNT:-1}" != 0 ]; then
  install_when_missing valgrind
  if command -v valgrind >/dev/null 2>&1; then
    write_count_wrapper "$work"
    for crate in with_macro derive_only; do
      echo "  $crate: instructions of an incremental rebuild (cachegrind; slow)"
      edit "$crate"
      instructions[$crate]="$(count_build "$work" "$crate")"
    done
    # And of a clean build, where each tool's decoder and handler are compiled.
    for crate in with_macro derive_only; do
      echo "  $crate: instructions of a clean build (cachegrind; slower)"
      cargo clean --quiet -p "$crate"
      instructions[${crate}_clean]="$(count_build "$work" "$crate")"
    done
  else
    echo "valgrind not found: no instruction count"
  fi
fi

echo
printf '%-23s   %-26s   %s\n' "" "clean build (s)" "incremental rebuild (s)"
printf '%-23s   %8s %8s %8s   %8s %8s %8s\n' crate median min "cpu mean" median min "cpu mean"
for crate in with_macro derive_only; do
  printf '%-23s' "$crate"
  for kind in clean incr; do
    printf '   %8s %8s %8s' "${median[${crate}_$kind]}" "${minimum[${crate}_$kind]}" \
      "${cpu[${crate}_$kind]}"
  done
  echo
done
printf '%-23s' "with_macro/derive_only"
for kind in clean incr; do
  printf '   %8s %8s %8s' "$(ratio "${median[with_macro_$kind]}" "${median[derive_only_$kind]}")" \
    "$(ratio "${minimum[with_macro_$kind]}" "${minimum[derive_only_$kind]}")" \
    "$(ratio "${cpu[with_macro_$kind]}" "${cpu[derive_only_$kind]}")"
done
echo
echo "(wall-clock median and min of $runs runs; cpu mean: user + system time, mean of the runs)"
echo
echo "macro adds $(percent "${median[with_macro_clean]}" "${median[derive_only_clean]}")% to the clean build"
echo "macro adds $(percent "${median[with_macro_incr]}" "${median[derive_only_incr]}")% to the incremental build (goal: under 20%)"
echo "by CPU time: +$(percent "${cpu[with_macro_clean]}" "${cpu[derive_only_clean]}")% clean," \
  "+$(percent "${cpu[with_macro_incr]}" "${cpu[derive_only_incr]}")% incremental"
if [ -n "${instructions[with_macro]:-}" ] && [ -n "${instructions[derive_only]:-}" ]; then
  echo "by instructions rustc executes (incremental): with_macro ${instructions[with_macro]}," \
    "derive_only ${instructions[derive_only]}:" \
    "+$(percent "${instructions[with_macro]}" "${instructions[derive_only]}")%"
  echo "by instructions rustc executes (clean): with_macro ${instructions[with_macro_clean]}," \
    "derive_only ${instructions[derive_only_clean]}:" \
    "+$(percent "${instructions[with_macro_clean]}" "${instructions[derive_only_clean]}")%"
fi
