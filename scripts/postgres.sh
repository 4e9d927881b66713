# Sourced by scripts/test.sh (bash, `set -euo pipefail`): starts a throwaway PostgreSQL server
# for the tests and exports its libpq connection string in TOOL_SDK_POSTGRES_URL
# ("host=127.0.0.1 port=PORT user=tool_sdk dbname=tool_sdk_test"). stop_postgres stops it and
# removes its files; it is safe to call more than once, and a no-op when nothing was started.
# A TOOL_SDK_POSTGRES_URL set by the caller is used as is: nothing is installed or started.

TOOL_SDK_PG_DIR=""
TOOL_SDK_PG_BIN=""
TOOL_SDK_PG_USER=""

stop_postgres() {
  [ -n "$TOOL_SDK_PG_DIR" ] || return 0
  if [ -f "$TOOL_SDK_PG_DIR/data/postmaster.pid" ]; then
    # Fast shutdown is clean and quick; immediate only if that hangs.
    tool_sdk_pg_run "$TOOL_SDK_PG_BIN/pg_ctl" -D "$TOOL_SDK_PG_DIR/data" -m fast -w -t 30 stop \
      >/dev/null 2>&1 ||
      tool_sdk_pg_run "$TOOL_SDK_PG_BIN/pg_ctl" -D "$TOOL_SDK_PG_DIR/data" -m immediate -w -t 30 \
        stop >/dev/null 2>&1 || true
  fi
  rm -rf "$TOOL_SDK_PG_DIR"
  TOOL_SDK_PG_DIR=""
}

# Runs a server command as TOOL_SDK_PG_USER (PostgreSQL refuses to run as root), from the
# cluster's directory so that an unreadable working directory does not matter.
tool_sdk_pg_run() {
  if [ -z "$TOOL_SDK_PG_USER" ]; then
    "$@"
  elif command -v runuser >/dev/null 2>&1; then
    (cd "$TOOL_SDK_PG_DIR" && runuser -u "$TOOL_SDK_PG_USER" -- "$@")
  else
    (cd "$TOOL_SDK_PG_DIR" && su -s /bin/sh "$TOOL_SDK_PG_USER" -c '"$0" "$@"' -- "$@")
  fi
}

# The bin directory of the newest PostgreSQL installed the Debian way, or nothing.
tool_sdk_pg_find_bin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      echo "$dir"
      return
    fi
  done
}

tool_sdk_pg_free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
  else
    # No python3: a random high port nothing answers on.
    local port
    while :; do
      port=$((49152 + RANDOM % 16384))
      if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "$port"
        return
      fi
    done
  fi
}

tool_sdk_pg_start() {
  local sudo="" port="" attempt log

  # A fresh machine has no server: install Debian's.
  TOOL_SDK_PG_BIN="$(tool_sdk_pg_find_bin)"
  if [ -z "$TOOL_SDK_PG_BIN" ]; then
    if [ "$(id -u)" != 0 ]; then
      if ! command -v sudo >/dev/null 2>&1; then
        echo "error: PostgreSQL is not installed (no initdb/pg_ctl in /usr/lib/postgresql/*/bin)" \
          "and, not being root and without sudo, this script cannot install it;" \
          "install the postgresql package or set TOOL_SDK_POSTGRES_URL" >&2
        exit 1
      fi
      sudo="sudo"
    fi
    echo "installing PostgreSQL (apt-get install postgresql)"
    if ! { $sudo apt-get update -qq &&
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; }; then
      echo "error: could not install PostgreSQL with apt-get; install the postgresql package" \
        "or set TOOL_SDK_POSTGRES_URL" >&2
      exit 1
    fi
    TOOL_SDK_PG_BIN="$(tool_sdk_pg_find_bin)"
    if [ -z "$TOOL_SDK_PG_BIN" ]; then
      echo "error: the postgresql package is installed but no initdb/pg_ctl is in" \
        "/usr/lib/postgresql/*/bin" >&2
      exit 1
    fi
  fi

  # As root, the server runs as the package's postgres user, or one made for it. Its
  # directory is then under /tmp, which that user can always reach (a root's TMPDIR may not be).
  if [ "$(id -u)" = 0 ]; then
    if getent passwd postgres >/dev/null; then
      TOOL_SDK_PG_USER=postgres
    else
      if ! getent passwd tool_sdk_pg >/dev/null; then
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
          tool_sdk_pg
      fi
      TOOL_SDK_PG_USER=tool_sdk_pg
    fi
    TOOL_SDK_PG_DIR="$(mktemp -d /tmp/tool-sdk-postgres.XXXXXX)"
    chown "$TOOL_SDK_PG_USER:" "$TOOL_SDK_PG_DIR"
  else
    TOOL_SDK_PG_USER=""
    TOOL_SDK_PG_DIR="$(mktemp -d -t tool-sdk-postgres.XXXXXX)"
  fi
  log="$TOOL_SDK_PG_DIR/postgres.log"

  # Trust authentication: the server is reachable only from this machine, for this run.
  # The server is thrown away with its files, and no test stops it: commits need not wait for
  # the disk (fsync, synchronous_commit), which on a busy machine can hold one for longer than
  # the tests' 200 ms leases. What clients see of a commit is the same.
  if ! tool_sdk_pg_run "$TOOL_SDK_PG_BIN/initdb" -D "$TOOL_SDK_PG_DIR/data" --auth=trust \
    -U tool_sdk --no-sync --encoding=UTF8 --locale=C.UTF-8 >"$TOOL_SDK_PG_DIR/initdb.log" 2>&1
  then
    echo "error: initdb failed:" >&2
    cat "$TOOL_SDK_PG_DIR/initdb.log" >&2
    stop_postgres
    exit 1
  fi
  cat >>"$TOOL_SDK_PG_DIR/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$TOOL_SDK_PG_DIR'
max_connections = 100
fsync = off
synchronous_commit = off
full_page_writes = off
EOF

  # The free port can be taken before the server binds it: then retry with another.
  for attempt in 1 2 3; do
    port="$(tool_sdk_pg_free_port)"
    if tool_sdk_pg_run "$TOOL_SDK_PG_BIN/pg_ctl" -D "$TOOL_SDK_PG_DIR/data" -o "-p $port" \
      -w -t 60 start -l "$log" >/dev/null 2>&1; then
      break
    fi
    if [ "$attempt" = 3 ] || ! grep -q "could not bind" "$log"; then
      echo "error: PostgreSQL did not start:" >&2
      cat "$log" >&2
      stop_postgres
      exit 1
    fi
  done

  if ! "$TOOL_SDK_PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U tool_sdk tool_sdk_test; then
    echo "error: could not create the database tool_sdk_test; server log:" >&2
    cat "$log" >&2
    stop_postgres
    exit 1
  fi

  export TOOL_SDK_POSTGRES_URL="host=127.0.0.1 port=$port user=tool_sdk dbname=tool_sdk_test"
  echo "PostgreSQL $("$TOOL_SDK_PG_BIN/pg_ctl" --version | awk '{print $3}') serving" \
    "$TOOL_SDK_POSTGRES_URL"
}

if [ -z "${TOOL_SDK_POSTGRES_URL:-}" ]; then
  tool_sdk_pg_start
else
  echo "PostgreSQL: using the caller's server, TOOL_SDK_POSTGRES_URL=$TOOL_SDK_POSTGRES_URL"
fi
