#!/usr/bin/env bash
# Starts, stops and reports the local services sated needs: the Temporal dev server and Ollama.
#
#   scripts/services.sh start  [temporal] [ollama]   start (or reuse) services; default both
#   scripts/services.sh stop   [worker] [temporal] [ollama]
#                              stop what this script (or scripts/run.sh) started; default all
#   scripts/services.sh status
#   scripts/services.sh run    [temporal] [ollama] -- CMD...
#                              start services, run CMD, stop only those it had to start,
#                              exit with CMD's status
#
# A server already answering on its port is reused and never stopped. Pids and logs live in
# .sated/. Ports: TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (8233), OLLAMA_PORT (11434), and
# SATED_CODEC_PORT (8239), the worker's payload codec the UI is pointed at.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$ROOT/.tools/bin
STATE=$ROOT/.sated
TEMPORAL_PORT=${TEMPORAL_PORT:-7233}
TEMPORAL_UI_PORT=${TEMPORAL_UI_PORT:-8233}
OLLAMA_PORT=${OLLAMA_PORT:-11434}
# where scripts/run.sh's worker serves the payload codec, which the UI calls to show compressed
# (over 128 KB) payloads as JSON
SATED_CODEC_PORT=${SATED_CODEC_PORT:-8239}
SHARED_MODELS=${SATED_SHARED_MODELS:-$ROOT/../shared/models}
WAIT_SECONDS=${SERVICES_WAIT_SECONDS:-90}
# the dev server's cap on moving new tasks to workers, as scripts/temporal-dynamicconfig.yaml
# sets it for docker compose (the default 20 a second makes every hand-off of a run wait 50 ms)
TRANSFER_POLL_RPS=history.transferProcessorMaxPollRPS=1000

die() {
  echo "services: $*" >&2
  exit 1
}
log() { echo "services: $*"; }

temporal_bin() {
  if [[ -x $BIN/temporal ]]; then
    echo "$BIN/temporal"
  elif command -v temporal >/dev/null 2>&1; then
    command -v temporal
  else
    die "temporal CLI not found; run 'make tools' (scripts/install-temporal.sh)"
  fi
}

ollama_bin() {
  if command -v ollama >/dev/null 2>&1; then
    command -v ollama
  elif [[ -x $BIN/ollama ]]; then
    echo "$BIN/ollama"
  else
    die "ollama not found; run 'make tools' (scripts/install-ollama.sh)"
  fi
}

# port_open reports whether something accepts TCP connections on 127.0.0.1:$1.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

temporal_up() {
  port_open "$TEMPORAL_PORT" &&
    "$(temporal_bin)" operator cluster health --address "127.0.0.1:$TEMPORAL_PORT" 2>/dev/null | grep -q SERVING
}

# ollama_up asks /api/version; without curl (a bare CI image) it speaks HTTP over /dev/tcp.
ollama_up() {
  if command -v curl >/dev/null 2>&1; then
    curl -sf --max-time 2 "http://127.0.0.1:$OLLAMA_PORT/api/version" >/dev/null
  else
    port_open "$OLLAMA_PORT" && timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" &&
      printf "GET /api/version HTTP/1.0\r\nHost: localhost\r\n\r\n" >&3 && grep -q "\"version\"" <&3' _ "$OLLAMA_PORT" 2>/dev/null
  fi
}

# alive reports whether the pid in pid file $1 runs.
alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# wait_for polls check $2 until it passes; fails naming service $1 and its log $3 otherwise.
wait_for() {
  local name=$1 check=$2 logfile=$3 pidfile=$4 i
  for ((i = 0; i < WAIT_SECONDS * 2; i++)); do
    if $check; then return 0; fi
    if ! alive "$pidfile"; then
      tail -n 20 "$logfile" >&2 || true
      rm -f "$pidfile"
      die "$name exited during startup (log: $logfile)"
    fi
    sleep 0.5
  done
  tail -n 20 "$logfile" >&2 || true
  die "$name did not become ready within ${WAIT_SECONDS}s (log: $logfile)"
}

start_temporal() {
  if temporal_up; then
    log "temporal: reusing server on 127.0.0.1:$TEMPORAL_PORT"
    return
  fi
  port_open "$TEMPORAL_PORT" && die "port $TEMPORAL_PORT is taken by something that is not a healthy Temporal server"
  mkdir -p "$STATE"
  setsid nohup "$(temporal_bin)" server start-dev --ip 127.0.0.1 \
    --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
    --db-filename "$STATE/temporal.db" --log-level warn \
    --search-attribute SatedStrategy=Keyword --search-attribute SatedState=Keyword \
    --dynamic-config-value "$TRANSFER_POLL_RPS" \
    --ui-codec-endpoint "http://127.0.0.1:$SATED_CODEC_PORT" \
    >"$STATE/temporal.log" 2>&1 </dev/null &
  echo $! >"$STATE/temporal.pid"
  # the UI port in use, for the links the starter prints when this server is reused later
  echo "$TEMPORAL_PORT http://localhost:$TEMPORAL_UI_PORT" >"$STATE/temporal.ui"
  wait_for temporal temporal_up "$STATE/temporal.log" "$STATE/temporal.pid"
  log "temporal: ready on 127.0.0.1:$TEMPORAL_PORT (UI http://localhost:$TEMPORAL_UI_PORT, pid $(cat "$STATE/temporal.pid"))"
}

start_ollama() {
  if ollama_up; then
    log "ollama: reusing server on 127.0.0.1:$OLLAMA_PORT"
  else
    port_open "$OLLAMA_PORT" && die "port $OLLAMA_PORT is taken by something that is not Ollama"
    mkdir -p "$STATE" "$ROOT/.tools/ollama-models"
    OLLAMA_HOST=127.0.0.1:$OLLAMA_PORT OLLAMA_MODELS=$ROOT/.tools/ollama-models \
      setsid nohup "$(ollama_bin)" serve >"$STATE/ollama.log" 2>&1 </dev/null &
    echo $! >"$STATE/ollama.pid"
    wait_for ollama ollama_up "$STATE/ollama.log" "$STATE/ollama.pid"
    log "ollama: ready on 127.0.0.1:$OLLAMA_PORT (pid $(cat "$STATE/ollama.pid"))"
  fi
  register_test_models
}

# register_test_models creates the two tiny test models from ../shared/models once.
register_test_models() {
  local ollama have name file
  ollama=$(ollama_bin)
  have=$(OLLAMA_HOST=127.0.0.1:$OLLAMA_PORT "$ollama" list)
  for pair in sated-test-stories=stories260K.gguf sated-test-random=llama-2-tiny-random.gguf; do
    name=${pair%%=*}
    file=$SHARED_MODELS/${pair#*=}
    if grep -q "^$name:" <<<"$have"; then continue; fi
    if [[ ! -f $file ]]; then
      [[ ${SATED_REQUIRE_INTEGRATION:-} == 1 ]] && die "test model file $file is missing"
      log "ollama: $file missing; test model $name not registered"
      continue
    fi
    mkdir -p "$ROOT/.tools/modelfiles"
    printf 'FROM %s\n' "$(cd "$(dirname "$file")" && pwd)/$(basename "$file")" >"$ROOT/.tools/modelfiles/$name"
    OLLAMA_HOST=127.0.0.1:$OLLAMA_PORT "$ollama" create "$name" -f "$ROOT/.tools/modelfiles/$name" \
      >"$STATE/ollama-create.log" 2>&1 || { cat "$STATE/ollama-create.log" >&2; die "ollama create $name failed"; }
    log "ollama: registered $name from $file"
  done
}

# stop_service ends the process in .sated/$1.pid if this script started it.
stop_service() {
  local pidfile=$STATE/$1.pid pid i
  if ! alive "$pidfile"; then
    rm -f "$pidfile"
    return
  fi
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || true
  for ((i = 0; i < 40; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  rm -f "$pidfile"
  log "$1: stopped (pid $pid)"
}

status() {
  local name
  if alive "$STATE/worker.pid"; then echo "worker: running (pid $(cat "$STATE/worker.pid"))"; fi
  for name in temporal ollama; do
    if alive "$STATE/$name.pid"; then
      echo "$name: running, started here (pid $(cat "$STATE/$name.pid"))"
    elif { [[ $name == temporal ]] && temporal_up; } || { [[ $name == ollama ]] && ollama_up; }; then
      echo "$name: answering, started elsewhere"
    else
      echo "$name: down"
    fi
  done
}

# services_from checks service names; none means temporal and ollama.
services_from() {
  local s out=()
  for s in "$@"; do
    case $s in
      temporal | ollama) out+=("$s") ;;
      *) die "unknown service $s (want temporal or ollama)" ;;
    esac
  done
  ((${#out[@]})) || out=(temporal ollama)
  echo "${out[@]}"
}

cmd=${1:-status}
shift || true
case $cmd in
  start)
    for s in $(services_from "$@"); do "start_$s"; done
    ;;
  stop)
    # The worker started by 'make run' goes first, so it does not log a lost server.
    if (($#)); then
      for s in "$@"; do
        [[ $s == worker ]] || services_from "$s" >/dev/null
        stop_service "$s"
      done
    else
      for s in worker temporal ollama; do stop_service "$s"; done
    fi
    ;;
  status)
    status
    ;;
  run)
    names=()
    while (($#)) && [[ $1 != -- ]]; do
      names+=("$1")
      shift
    done
    [[ ${1:-} == -- ]] || die "usage: services.sh run [temporal] [ollama] -- CMD..."
    shift
    started=()
    for s in $(services_from "${names[@]}"); do
      alive "$STATE/$s.pid" || { "${s}_up" && log "$s: already running"; } || started+=("$s")
    done
    trap 'for s in "${started[@]}"; do stop_service "$s"; done' EXIT
    for s in $(services_from "${names[@]}"); do "start_$s"; done
    set +e
    "$@"
    rc=$?
    set -e
    exit "$rc"
    ;;
  *)
    die "usage: services.sh start|stop|status [temporal] [ollama] | run [services] -- CMD"
    ;;
esac
