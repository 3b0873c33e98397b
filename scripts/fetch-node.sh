#!/usr/bin/env bash
# Prints the path of a pinned Node 22 binary, fetched once into .cache/ from the npm registry (the `node`
# package's per-platform packages carry the nodejs.org builds). The package test runs the installed
# package on it as well when ARS_NODE22 names it: Node 22 is the oldest Node the package supports, and
# the repository itself runs on the Node 24 pinned in devDependencies.
set -euo pipefail
VERSION="${1:-22.23.3}"
cd "$(dirname "$0")/.."
os=$(uname -s | tr '[:upper:]' '[:lower:]')
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) arch=$(uname -m) ;;
esac
dest=".cache/node-$VERSION"
if [ ! -x "$dest/bin/node" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  npm pack "node-$os-$arch@$VERSION" --pack-destination "$tmp" --silent >/dev/null
  mkdir -p "$dest"
  tar -xzf "$tmp"/*.tgz -C "$dest" --strip-components=1 package/bin/node package/LICENSE
fi
"$dest/bin/node" --version >/dev/null
echo "$PWD/$dest/bin/node"
