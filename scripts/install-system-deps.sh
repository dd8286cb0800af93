#!/usr/bin/env bash
# Installs the system packages the test suites need (Debian's chromium for the login UI tests).
# Idempotent: does nothing when chromium is already on PATH; never downloads a browser itself.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  echo "install-system-deps: chromium present ($(command -v chromium))"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-system-deps: chromium missing and not root; skipping (browser tests will be skipped)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium
