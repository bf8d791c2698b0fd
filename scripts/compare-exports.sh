#!/usr/bin/env bash
# Exports three libraries with one build, for `diff -r` against another build's exports: the bundled
# sample library, the hostile one and a 3,000-book synthetic one, every format, with --site-url and
# SOURCE_DATE_EPOCH, each from a sample server on a fixed loopback port (the address is in the files).
#
#   scripts/compare-exports.sh BIN OUT        writes OUT/sample, OUT/hostile, OUT/synthetic-3000
#   diff -r -x state.json OLD NEW             what two builds wrote differently (state.json names the build)
#
# The libraries are served by the development tool beside BIN (reader-snapshot-dev), or by BIN itself
# when it has none (builds before it). SERVER_BIN=OTHER serves them from another build's sample
# server: the same libraries for two builds whose sample libraries differ. FORMATS overrides the
# formats written.
set -euo pipefail
bin=$1 out=$2
server_bin=${SERVER_BIN:-$(dirname "$bin")/reader-snapshot-dev}
[ -x "$server_bin" ] || server_bin=$bin
formats=${FORMATS:-html,markdown,json,csv,feed}
port=${PORT:-18471}
export READER_PASSWORD=demo-password SOURCE_DATE_EPOCH=1700000000
mkdir -p "$out"
server_pid=
stop_server() { if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=; fi; }
trap stop_server EXIT

export_library() {
  local name=$1; shift
  local log="$out/$name.server.log"
  "$server_bin" sample-server --port "$port" --login-delay-ms 0 "$@" >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do grep -q "^Sample Reader server:" "$log" && break; sleep 0.1; done
  local url
  url=$(awk '/^Sample Reader server:/ { print $4 }' "$log")
  rm -rf "${out:?}/$name"
  local status=0
  "$bin" export --server "$url" --email demo@reader.example --output "$out/$name" --quiet \
    --format "$formats" --site-url https://books.example.org/library/ --fixed-concurrency || status=$?
  echo "$name: exit $status"
  stop_server
  rm -f "$log"
}

export_library sample
export_library hostile --library hostile
export_library synthetic-3000 --books 3000 --seed 1
