#!/bin/bash
# Idle memory of fresh nodes (issue #13): starts RUNS nodes at once, each as `npm start` runs one
# (`node dist/src/cli/main.js start`, a new empty data directory, TESSERA_WORKERS=$WORKERS),
# waits SETTLE seconds (the idle trim needs two quiet 10 s intervals after start), prints
# VmRSS / RssAnon / RssFile from /proc/<pid>/status and the process's thread count, stops them.
#   bench/idle-memory.sh                 # RUNS=3 WORKERS=1 SETTLE=45
#   RUNS=2 WORKERS=2 bench/idle-memory.sh
# ROOT=<checkout> measures another build (its dist/). Extra arguments go to node (V8 flags).
# The nodes get the malloc settings `npm start` gives (src/cli/malloc-settings.ts) unless the
# environment has its own (`GLIBC_TUNABLES=` for glibc's defaults).
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
RUNS=${RUNS:-3}; WORKERS=${WORKERS:-1}; SETTLE=${SETTLE:-45}
SETTINGS="$ROOT/dist/src/cli/malloc-settings.js"
if [ -f "$SETTINGS" ]; then
  eval "$(node --input-type=module -e "const { mallocSettingsFor } = await import(process.argv[1]); for (const [name, value] of Object.entries(mallocSettingsFor(process.env))) console.log(\`export \${name}=\${value}\`);" "$SETTINGS")"
fi
one() {
  local dir pid
  dir=$(mktemp -d "${TMPDIR:-/tmp}/tessera-idle-XXXXXX")
  TESSERA_DATA_DIR=$dir TESSERA_WORKERS=$WORKERS TESSERA_PORT=0 TESSERA_GRPC_PORT=0 TESSERA_HOST=127.0.0.1 \
    node "$@" "$ROOT/dist/src/cli/main.js" start >"$dir/node.log" 2>&1 &
  pid=$!
  sleep "$SETTLE"
  if kill -0 "$pid" 2>/dev/null; then
    echo "workers=$WORKERS settle=${SETTLE}s $(awk '/^(VmRSS|RssAnon|RssFile):/{printf "%s %.1f MiB  ", $1, $2/1024}' /proc/$pid/status)threads=$(ls /proc/$pid/task | wc -l)"
    kill "$pid"; wait "$pid" 2>/dev/null
  else
    echo "node exited early: $(tail -3 "$dir/node.log")"
  fi
  rm -rf "$dir"
}
for _ in $(seq "$RUNS"); do one "$@" & done
wait
