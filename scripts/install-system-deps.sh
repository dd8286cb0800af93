#!/usr/bin/env bash
# Installs the system packages the test suites need: Debian's chromium (login UI tests) and
# openssl (the TLS tests make a throwaway certificate with it). Idempotent: installs only what
# is missing from PATH; never downloads a browser itself.
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-system-deps: chromium and openssl present ($(command -v chromium), $(command -v openssl))"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-system-deps: missing ${missing[*]} and not root; skipping (their tests will be skipped or fail)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
