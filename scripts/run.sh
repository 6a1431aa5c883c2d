#!/usr/bin/env bash
# Runs sated end to end on this machine: services, a background worker, a corpus index and one
# research run whose progress and report are printed. Called by 'make run' after the build.
#
#   CORPUS   files or directories to index (default: $(go env GOROOT)/doc)
#   Q        the research question
#   OLLAMA=1 also start the local Ollama and point OLLAMA_HOST at it; without it and without
#            OLLAMA_HOST the run is extractive (no LLM). Models: SATED_PLANNER_MODEL etc.
#   RESEARCH_FLAGS  extra flags for 'starter research'
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$ROOT/.tools/bin
STATE=$ROOT/.sated
Q=${Q:-What does the Go memory model guarantee, and how do channels and sync.Once create happens-before edges?}
CORPUS=${CORPUS:-$(go env GOROOT)/doc}

services=(temporal)
if [[ ${OLLAMA:-} == 1 ]]; then
  services+=(ollama)
  export OLLAMA_HOST=${OLLAMA_HOST:-http://127.0.0.1:${OLLAMA_PORT:-11434}}
fi
bash scripts/services.sh start "${services[@]}"
export TEMPORAL_ADDRESS=${TEMPORAL_ADDRESS:-127.0.0.1:${TEMPORAL_PORT:-7233}}
# the UI links follow the UI port of the server in use: the one services.sh started it on, when
# it started the server on this port, else TEMPORAL_UI_PORT
if [[ -z ${SATED_UI_URL:-} && -f .sated/temporal.ui ]]; then
  read -r ui_for ui_url <.sated/temporal.ui || true
  [[ ${ui_for:-} == "${TEMPORAL_PORT:-7233}" ]] && export SATED_UI_URL=$ui_url
fi
export SATED_UI_URL=${SATED_UI_URL:-http://localhost:${TEMPORAL_UI_PORT:-8233}}
if [[ -n ${OLLAMA_HOST:-} ]]; then
  echo "run: LLM stages use Ollama at $OLLAMA_HOST (planner=${SATED_PLANNER_MODEL:-none} producer=${SATED_PRODUCER_MODEL:-none} evaluator=${SATED_EVALUATOR_MODEL:-none} embed=${SATED_EMBED_MODEL:-none})"
else
  echo "run: no OLLAMA_HOST: extractive run without an LLM (use 'make run OLLAMA=1' and SATED_*_MODEL for one)"
fi

# A fresh worker per run, so it runs the binary just built.
bash scripts/services.sh stop worker
mkdir -p "$STATE"
# The worker never creates the memory store: a missing one is an error, so a wrong
# SATED_DATA_DIR or a deleted directory cannot pass for an empty memory. The first run here (no
# worker has logged in $STATE yet) creates it, as does a run given a SATED_DATA_DIR that does not
# exist yet or is empty (a data dir of its own for the user's documents); later runs leave a
# missing store to the worker's error.
data=${SATED_DATA_DIR:-$STATE}
fresh_dir() { [[ -n ${SATED_DATA_DIR:-} ]] && { [[ ! -e $SATED_DATA_DIR ]] || [[ -d $SATED_DATA_DIR && -z $(ls -A "$SATED_DATA_DIR") ]]; }; }
if [[ ! -e $data/memory ]] && { [[ ! -e $STATE/worker.log ]] || fresh_dir; }; then
  "$BIN/starter" memory init
fi
# the worker serves the payload codec the UI was started with (scripts/services.sh)
SATED_CODEC_ADDR=${SATED_CODEC_ADDR:-127.0.0.1:${SATED_CODEC_PORT:-8239}} \
  setsid nohup "$BIN/worker" >"$STATE/worker.log" 2>&1 </dev/null &
echo $! >"$STATE/worker.pid"
sleep 2
if ! kill -0 "$(cat "$STATE/worker.pid")" 2>/dev/null; then
  tail -n 20 "$STATE/worker.log" >&2 || true
  rm -f "$STATE/worker.pid"
  echo "run: the worker exited at startup (log: $STATE/worker.log)" >&2
  exit 1
fi
echo "run: worker running (pid $(cat "$STATE/worker.pid"), log $STATE/worker.log)"

read -r -a corpus <<<"$CORPUS"
"$BIN/starter" corpus index "${corpus[@]}"
read -r -a flags <<<"${RESEARCH_FLAGS:-}"
"$BIN/starter" research "${flags[@]}" "$Q"

echo
echo "Temporal UI: $SATED_UI_URL/namespaces/default/workflows"
echo "The worker and services keep running; 'make stop' ends them."
