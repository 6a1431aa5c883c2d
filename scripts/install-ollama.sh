#!/usr/bin/env bash
# Installs the ollama binary into .tools/bin (built from source with cgo: no internet but the Go proxy and apt).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$ROOT/.tools/bin
OLLAMA_VERSION=${OLLAMA_VERSION:-v0.17.4}
MALGO_VERSION=v0.11.24

if command -v ollama >/dev/null 2>&1; then
  echo "ollama: using $(command -v ollama)"
  exit 0
fi
if [[ -x $BIN/ollama ]]; then
  echo "ollama: using $BIN/ollama"
  exit 0
fi

# Build needs: a C++ compiler, nlohmann/json and stb from Debian, miniaudio from a Go module.
need=()
command -v g++ >/dev/null 2>&1 || need+=(g++)
[[ -f /usr/include/nlohmann/json.hpp ]] || need+=(nlohmann-json3-dev)
[[ -f /usr/include/stb/stb_image.h || -f /usr/include/stb_image.h ]] || need+=(libstb-dev)
if ((${#need[@]})); then
  echo "ollama: installing ${need[*]} with apt-get"
  SUDO=""
  if [[ $(id -u) != 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${need[@]}"
fi
if [[ ! -f $ROOT/.tools/include/miniaudio/miniaudio.h ]]; then
  # An empty temp dir, so no go.mod (least of all the project's) is read or changed.
  tmp=$(mktemp -d)
  dir=$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "github.com/gen2brain/malgo@$MALGO_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  rmdir "$tmp"
  hdr=$(find "$dir" -name miniaudio.h | head -n1)
  if [[ -z $hdr ]]; then
    echo "ollama: miniaudio.h not found in github.com/gen2brain/malgo@$MALGO_VERSION ($dir)" >&2
    exit 1
  fi
  mkdir -p "$ROOT/.tools/include/miniaudio"
  cp "$hdr" "$ROOT/.tools/include/miniaudio/miniaudio.h"
fi

echo "ollama: building github.com/ollama/ollama@$OLLAMA_VERSION (several minutes)"
start=$(date +%s)
mkdir -p "$BIN"
CGO_ENABLED=1 CGO_CPPFLAGS="-I$ROOT/.tools/include ${CGO_CPPFLAGS:-}" GOBIN=$BIN \
  go install -ldflags "-s -w -X=github.com/ollama/ollama/version.Version=${OLLAMA_VERSION#v}" \
  "github.com/ollama/ollama@$OLLAMA_VERSION"
echo "ollama: built in $(($(date +%s) - start))s: $("$BIN/ollama" --version 2>&1 | grep -i version | tail -n1)"
