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
# A build is kept per user and version outside the checkout, so a fresh clone on the same
# machine (CI) reuses it instead of compiling llama.cpp again.
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/sated/ollama-$OLLAMA_VERSION
if [[ -x $CACHE/bin/ollama ]] && "$CACHE/bin/ollama" --version >/dev/null 2>&1; then
  mkdir -p "$BIN"
  cp "$CACHE/bin/ollama" "$BIN/ollama"
  echo "ollama: using the build cached in $CACHE"
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
if [[ ! -f $CACHE/include/miniaudio/miniaudio.h ]]; then
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
  mkdir -p "$CACHE/include/miniaudio"
  cp "$hdr" "$CACHE/include/miniaudio/miniaudio.h"
fi

echo "ollama: building github.com/ollama/ollama@$OLLAMA_VERSION (several minutes)"
start=$(date +%s)
mkdir -p "$BIN"
CGO_ENABLED=1 CGO_CPPFLAGS="-I$CACHE/include ${CGO_CPPFLAGS:-}" GOBIN=$BIN \
  go install -ldflags "-s -w -X=github.com/ollama/ollama/version.Version=${OLLAMA_VERSION#v}" \
  "github.com/ollama/ollama@$OLLAMA_VERSION"
mkdir -p "$CACHE/bin"
cp "$BIN/ollama" "$CACHE/bin/ollama.tmp" && mv "$CACHE/bin/ollama.tmp" "$CACHE/bin/ollama"
echo "ollama: built in $(($(date +%s) - start))s: $("$BIN/ollama" --version 2>&1 | grep -i version | tail -n1)"
