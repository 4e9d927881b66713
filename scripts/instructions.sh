#!/usr/bin/env bash
# The cost of one dispatch (of `add(a, b)`, and of a call with a nested-struct argument) and of
# one loop round, counted in instructions under cachegrind (which do not move with the
# machine's load the way time does), held to the committed baseline in
# tool-sdk/benches/instructions.baseline: any of them growing more than 5% over it fails,
# so a regression stops at the commit that makes it. The baseline changes only in a commit that
# says why (`--bless` writes the figures counted now). Needs valgrind (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

BASELINE=tool-sdk/benches/instructions.baseline
TOLERANCE_PERCENT=5
DISPATCH_CALLS=100000
NESTED_CALLS=20000
ROUND_RUNS=5000

if ! command -v valgrind >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "installing valgrind (apt-get install valgrind)"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi

echo "instructions: building the instruction benches (release)"
executables="$(cargo bench -p tool-sdk --bench dispatch_instructions --bench round_instructions \
  --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message.get("executable"):
        print(message["target"]["name"], message["executable"])
')"
executable() {
  echo "$executables" | awk -v name="$1" '$1 == name { print $2 }'
}
DISPATCH="$(executable dispatch_instructions)"
ROUND="$(executable round_instructions)"

# Instructions the whole process EXECUTABLE executed with the VAR=value settings given, as
# cachegrind counts them.
count() {
  local executable="$1"
  shift
  env "$@" valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$executable" 2>&1 | awk '/I *refs/ { gsub(",", "", $NF); print $NF }'
}

# One operation's instructions: (the mode's count - the empty mode's) / runs.
per_run() {
  python3 -c 'import sys; print(round((int(sys.argv[1]) - int(sys.argv[2])) / int(sys.argv[3])))' "$@"
}

echo "instructions: counting $DISPATCH_CALLS dispatches of add(a, b) (hand-written, registry)"
none="$(count "$DISPATCH" DISPATCH_MODE=none DISPATCH_CALLS=$DISPATCH_CALLS)"
hand="$(count "$DISPATCH" DISPATCH_MODE=hand DISPATCH_CALLS=$DISPATCH_CALLS)"
registry="$(count "$DISPATCH" DISPATCH_MODE=registry DISPATCH_CALLS=$DISPATCH_CALLS)"
echo "instructions: counting $NESTED_CALLS dispatches of a nested-struct argument (hand-written, registry)"
nested_none="$(count "$DISPATCH" DISPATCH_MODE=none DISPATCH_CALLS=$NESTED_CALLS)"
nested_hand="$(count "$DISPATCH" DISPATCH_MODE=nested_hand DISPATCH_CALLS=$NESTED_CALLS)"
nested_registry="$(count "$DISPATCH" DISPATCH_MODE=nested_registry DISPATCH_CALLS=$NESTED_CALLS)"
echo "instructions: counting $ROUND_RUNS loop rounds"
round_none="$(count "$ROUND" ROUND_MODE=none ROUND_RUNS=$ROUND_RUNS)"
round="$(count "$ROUND" ROUND_MODE=round ROUND_RUNS=$ROUND_RUNS)"

rustc_version="$(rustc --version | awk '{ print $2 }')"
measured="rustc $rustc_version
dispatch_hand $(per_run "$hand" "$none" "$DISPATCH_CALLS")
dispatch_registry $(per_run "$registry" "$none" "$DISPATCH_CALLS")
nested_hand $(per_run "$nested_hand" "$nested_none" "$NESTED_CALLS")
nested_registry $(per_run "$nested_registry" "$nested_none" "$NESTED_CALLS")
round $(per_run "$round" "$round_none" "$ROUND_RUNS")"

if [ "${1:-}" = "--bless" ]; then
  {
    echo "# Instructions per operation under cachegrind (scripts/instructions.sh); a figure more"
    echo "# than $TOLERANCE_PERCENT% over its line fails the test script. Changed only by a commit that says why."
    echo "$measured"
  } >"$BASELINE"
  echo "instructions: wrote $BASELINE"
  cat "$BASELINE"
  exit 0
fi

python3 - "$BASELINE" "$TOLERANCE_PERCENT" "$measured" <<'PY'
import sys
baseline_path, tolerance, measured_text = sys.argv[1], float(sys.argv[2]), sys.argv[3]

def figures(text):
    lines = [line.split() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return {name: value for name, value in lines}

baseline, measured = figures(open(baseline_path).read()), figures(measured_text)
if baseline["rustc"] != measured["rustc"]:
    # Another compiler emits other code: the figures are printed, not held to a baseline that
    # does not apply. The test script's own machine runs the baseline's compiler.
    print(f"instructions: the baseline was counted with rustc {baseline['rustc']}, this is rustc "
          f"{measured['rustc']}; not compared:")
    for name, value in measured.items():
        print(f"  {name} {value}")
    sys.exit(0)
failed = False
for name in ("dispatch_hand", "dispatch_registry", "nested_hand", "nested_registry", "round"):
    now, then = int(measured[name]), int(baseline[name])
    change = (now - then) / then * 100
    verdict = "ok"
    if not name.endswith("_hand") and change > tolerance:
        verdict = f"FAILED: more than {tolerance:g}% over the baseline"
        failed = True
    print(f"instructions: {name:18} {now:>7} (baseline {then:>7}, {change:+.1f}%) {verdict}")
ratio = int(measured["dispatch_registry"]) / int(measured["dispatch_hand"])
print(f"instructions: a dispatch through the registry costs {ratio:.2f}x the hand-written call")
ratio = int(measured["nested_registry"]) / int(measured["nested_hand"])
print(f"instructions: with a nested-struct argument, {ratio:.2f}x")
if failed:
    print(f"error: see above; if the cost is meant, run scripts/instructions.sh --bless and say why in the commit",
          file=sys.stderr)
    sys.exit(1)
PY
