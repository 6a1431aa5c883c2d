# sated developer targets. 'make help' lists them. Tools install into .tools/, state into .sated/.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

BIN := $(CURDIR)/.tools/bin
export PATH := $(BIN):$(PATH)
# Passed through to tests: 1 turns integration skips into failures.
export SATED_REQUIRE_INTEGRATION

TEMPORAL_PORT ?= 7233
OLLAMA_PORT ?= 11434
export TEMPORAL_PORT OLLAMA_PORT
TEST_ENV := TEMPORAL_ADDRESS=127.0.0.1:$(TEMPORAL_PORT) OLLAMA_HOST=http://127.0.0.1:$(OLLAMA_PORT) \
	SATED_TEST_MODEL=sated-test-stories SATED_TEST_RANDOM_MODEL=sated-test-random
PKGS ?= ./...
TESTFLAGS ?=
BENCH ?= .
BENCHTIME ?= 500ms
WORKFLOWCHECK_VERSION ?= v0.6.0

.PHONY: help tools build test bench soak run stop clean lint

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z]+:.*## / {printf "  make %-7s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo
	@echo "  make run OLLAMA=1 SATED_PLANNER_MODEL=... starts Ollama and gives stages a model;"
	@echo "  CORPUS='dir ...' and Q='question' choose what 'make run' indexes and asks."
	@echo "  PKGS=./internal/... TESTFLAGS=-v narrow 'make test'; BENCH=regexp BENCHTIME=1s tune 'make bench'."

tools: ## install the Temporal CLI and Ollama into .tools/bin (built with Go if missing) and the dev-set docs
	@bash scripts/install-temporal.sh
	@bash scripts/install-ollama.sh
	@bash scripts/install-docs.sh

build: ## build the worker and starter into .tools/bin
	@mkdir -p $(BIN)
	go build -o $(BIN)/worker ./worker
	go build -o $(BIN)/starter ./starter

test: tools ## go vet, then every test against a real Temporal and Ollama with the tiny models
	go vet $(PKGS)
	bash scripts/services.sh run temporal ollama -- \
		env $(TEST_ENV) go test $(PKGS) -count=1 -timeout 40m $(TESTFLAGS)

bench: tools ## benchmarks with the test services; output also in .sated/bench.txt
	@mkdir -p .sated
	bash scripts/services.sh run temporal ollama -- \
		env $(TEST_ENV) go test -run '^$$' -bench '$(BENCH)' -benchtime $(BENCHTIME) -benchmem \
		-p 1 -timeout 30m $(PKGS) | tee .sated/bench.txt

soak: tools ## the long reliability suite: 20 random worker kills, a dev-server restart, 50 concurrent runs; output also in .sated/soak.txt
	@mkdir -p .sated
	bash scripts/services.sh run temporal -- \
		env $(TEST_ENV) SATED_SOAK=1 go test ./worker -run 'Soak' -count=1 -v -timeout 40m | tee .sated/soak.txt | grep -E '^(=== RUN|--- |\s+\S+\.go:[0-9]+: SOAK|PASS|FAIL|ok)'

run: build ## Temporal + worker, index CORPUS, research Q, print the report and the UI link
	@bash scripts/install-temporal.sh
	@if [[ "$${OLLAMA:-}" == 1 ]]; then bash scripts/install-ollama.sh; fi
	bash scripts/run.sh

stop: ## stop the worker and the services started here
	@bash scripts/services.sh stop

clean: stop ## stop everything and delete .sated (runs, corpus, memory, Temporal history)
	rm -rf .sated

lint: ## gofmt check, go vet, workflowcheck
	@files=$$(find . -name '*.go' -not -path './.*' | xargs gofmt -l); \
	if [[ -n $$files ]]; then echo "gofmt needed:"; echo "$$files"; exit 1; fi
	go vet ./...
	@if [[ ! -x $(BIN)/workflowcheck ]]; then \
		GOBIN=$(BIN) go install go.temporal.io/sdk/contrib/tools/workflowcheck@$(WORKFLOWCHECK_VERSION) || \
		echo "lint: workflowcheck could not be installed; skipping it"; \
	fi
	@if [[ -x $(BIN)/workflowcheck ]]; then echo "workflowcheck ./..."; $(BIN)/workflowcheck ./...; fi
