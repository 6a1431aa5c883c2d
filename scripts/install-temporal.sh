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
echo "temporal: building github.com/temporalio/cli@$TEMPORAL_VERSION (a few minutes)"
start=$(date +%s)
mkdir -p "$BIN"
GOBIN=$BIN go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_VERSION"
echo "temporal: built in $(($(date +%s) - start))s"
