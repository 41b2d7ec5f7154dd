#!/usr/bin/env bash
# PostgreSQL for the TFB test types, from Debian's packages: a data directory in a temporary
# folder, listening on 127.0.0.1 only, loaded with TFB's World and Fortune tables (create.sql)
# for the user benchmarkdbuser (password benchmarkdbpass) in the database hello_world.
#
#   benchmarks/tfb/pg.sh start    start it (installs postgresql with apt-get when missing); prints
#                                 DATABASE_URL=postgresql://...  Starting it twice is harmless.
#   benchmarks/tfb/pg.sh url      print the DATABASE_URL of the running instance
#   benchmarks/tfb/pg.sh status   exit 0 when it runs
#   benchmarks/tfb/pg.sh stop     stop it and remove its folder. Stopping it twice is harmless.
#
# PGPORT     the port (default 5432; when taken, the next free one, and the URL says which)
# PG_DIR     its folder (default ${TMPDIR:-/tmp}/hasten-tfb-pg): data, socket, log, port
# PG_BIN     the PostgreSQL binaries (default: the newest /usr/lib/postgresql/*/bin)
#
# As root, the server runs as the `postgres` user that Debian's package creates.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
DIR="${PG_DIR:-${TMPDIR:-/tmp}/hasten-tfb-pg}"
DATA="$DIR/data"
USER_NAME=benchmarkdbuser
PASSWORD=benchmarkdbpass
DATABASE=hello_world

find_bin() {
    if [ -n "${PG_BIN:-}" ]; then
        echo "$PG_BIN"
        return
    fi
    local found
    found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    if [ -z "$found" ]; then
        echo "pg.sh: PostgreSQL is missing: installing it with apt-get" >&2
        apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
        found="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
    fi
    echo "$found"
}

# Run a command as the server's owner: `postgres` when we are root, else ourselves.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

port_taken() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

running() {
    [ -f "$DATA/postmaster.pid" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

url() {
    echo "postgresql://$USER_NAME:$PASSWORD@127.0.0.1:$(cat "$DIR/port")/$DATABASE"
}

psql_admin() {
    "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$(cat "$DIR/port")" -U postgres "$@"
}

choose_port() {
    local port="${PGPORT:-5432}" last
    last=$((port + 50))
    while port_taken "$port"; do
        port=$((port + 1))
        if [ "$port" -gt "$last" ]; then
            echo "pg.sh: no free port from ${PGPORT:-5432} to $last" >&2
            exit 1
        fi
    done
    echo "$port"
}

start() {
    if running; then
        echo "DATABASE_URL=$(url)"
        return
    fi
    mkdir -p "$DIR"
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$DIR"
    fi
    chmod 700 "$DIR"
    if [ ! -s "$DATA/PG_VERSION" ]; then
        rm -rf "$DATA"
        as_owner "$BIN/initdb" -D "$DATA" -U postgres -E UTF8 --locale=C.UTF-8 \
            --auth-local=trust --auth-host=scram-sha-256 >"$DIR/initdb.log"
    fi
    choose_port >"$DIR/port.new"
    mv "$DIR/port.new" "$DIR/port"
    # TFB's settings where they matter on one small machine: no synchronous commit, the
    # statement counter loaded (verify.py counts queries with it), room for every pool.
    as_owner "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 start -o "\
        -c listen_addresses=127.0.0.1 -c port=$(cat "$DIR/port") \
        -c unix_socket_directories=$DIR -c max_connections=400 \
        -c shared_buffers=128MB -c synchronous_commit=off \
        -c wal_level=minimal -c max_wal_senders=0 \
        -c shared_preload_libraries=pg_stat_statements" >/dev/null
    load
    echo "DATABASE_URL=$(url)"
}

load() {
    local exists
    exists="$(psql_admin -d postgres -tA -c "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")"
    if [ "$exists" = 1 ]; then
        return
    fi
    psql_admin -d postgres -c "CREATE USER $USER_NAME WITH PASSWORD '$PASSWORD'"
    psql_admin -d postgres -c "CREATE DATABASE $DATABASE OWNER $USER_NAME"
    psql_admin -d "$DATABASE" -f "$HERE/create.sql" >/dev/null
}

stop() {
    if running; then
        as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
    fi
    rm -rf "$DIR"
}

BIN="$(find_bin)"
case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) running ;;
    url)
        running || { echo "pg.sh: not running (pg.sh start)" >&2; exit 1; }
        url
        ;;
    *)
        echo "usage: $0 start|stop|status|url" >&2
        exit 2
        ;;
esac
