#!/usr/bin/env bash
# Installs what the benchmarks (bench/, `npm run bench`) use besides node_modules: Debian's wrk,
# a C load generator that costs far less CPU per request than autocannon, so a 2-core machine
# keeps more of a core for the server. Benchmarks only: `npm test` and CI do not need it.
# Idempotent: installs only when `wrk` is missing from PATH; without root it says so and exits 0
# (the bench then runs autocannon alone).
set -euo pipefail

if command -v wrk >/dev/null 2>&1; then
  echo "install-bench-deps: wrk present ($(command -v wrk))"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-bench-deps: wrk missing and not root; skipping (run as root, or: sudo apt-get install -y --no-install-recommends wrk)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends wrk
echo "install-bench-deps: wrk installed ($(command -v wrk))"
