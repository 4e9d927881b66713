# Helpers shared by the scripts that measure what the macros cost a build
# (scripts/compile_cost.sh, scripts/fixed_cost.sh). Sourced, not run: it defines functions and
# sets nothing but them. Each function runs from the repository's root unless it says otherwise.

# A dependency line exactly as the repository pins it (version and features), so that generated
# crates measure the serde, serde_json and schemars that tool-sdk itself is built with.
workspace_dep() {
  awk -v name="$1" '/^\[/ { section = $0; next }
    section == "[workspace.dependencies]" && $1 == name && $2 == "=" { print; found = 1; exit }
    END { exit !found }' Cargo.toml ||
    { echo "error: no $1 in Cargo.toml [workspace.dependencies]" >&2; return 1; }
}

# Installs the Debian package NAME when its command is missing and this runs as root with
# apt-get; says nothing when it cannot. Callers check `command -v` afterwards.
install_when_missing() {
  local name=$1
  if ! command -v "$name" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] &&
    command -v apt-get >/dev/null 2>&1; then
    echo "installing $name (Debian package)"
    { apt-get install -y -qq "$name" || { apt-get update -qq && apt-get install -y -qq "$name"; }; } \
      >/dev/null 2>&1 || true
  fi
}

# Writes DIR/count-rustc.sh, a RUSTC_WRAPPER that runs under cachegrind the rustc that compiles
# crate $COUNT_CRATE (its log to $COUNT_LOG) and every other rustc as it is. Macro expansion is
# counted (proc macros run inside rustc); what a proc macro starts as a process of its own is
# not, nor the linker.
write_count_wrapper() {
  cat >"$1/count-rustc.sh" <<'EOF'
#!/usr/bin/env bash
rustc="$1"
shift
case " $* " in
  *" --crate-name $COUNT_CRATE "*)
    exec valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
      --log-file="$COUNT_LOG" "$rustc" "$@" ;;
esac
exec "$rustc" "$@"
EOF
  chmod +x "$1/count-rustc.sh"
}

# Prints the instructions rustc executes compiling CRATE in `cargo build -p CRATE` (run in the
# current directory), through the wrapper write_count_wrapper put in DIR. The caller prepares
# what is rebuilt (an edit, a `cargo clean -p`). Cargo names crates with `_` where packages have
# `-`.
count_build() {
  local dir=$1 crate=$2 log="$1/count.$2.log"
  rm -f "$log"
  COUNT_CRATE="${crate//-/_}" COUNT_LOG="$log" RUSTC_WRAPPER="$dir/count-rustc.sh" \
    cargo build --quiet -p "$crate" >&2
  awk '/I +refs:/ { gsub(",", "", $NF); print $NF }' "$log"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
percent() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (a / b - 1) * 100 }'; }
