#!/usr/bin/env bash
# Installs the Temporal CLI (which embeds the dev server) into .tools/bin with the Go toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/.tools/bin
TEMPORAL_VERSION=${TEMPORAL_VERSION:-v1.5.1}

if [[ -x $BIN/temporal ]]; then
  echo "temporal: using $BIN/temporal"
  exit 0
fi
if command -v temporal >/dev/null 2>&1; then
  echo "temporal: using $(command -v temporal)"
  exit 0
fi
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/sated/temporal-$TEMPORAL_VERSION
if [[ -x $CACHE/bin/temporal ]] && "$CACHE/bin/temporal" --version >/dev/null 2>&1; then
  mkdir -p "$BIN"
  cp "$CACHE/bin/temporal" "$BIN/temporal"
  echo "temporal: using the build cached in $CACHE"
  exit 0
fi
echo "temporal: building github.com/temporalio/cli@$TEMPORAL_VERSION (a few minutes)"
start=$(date +%s)
mkdir -p "$BIN"
GOBIN=$BIN go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_VERSION"
mkdir -p "$CACHE/bin"
cp "$BIN/temporal" "$CACHE/bin/temporal.tmp" && mv "$CACHE/bin/temporal.tmp" "$CACHE/bin/temporal"
echo "temporal: built in $(($(date +%s) - start))s"
