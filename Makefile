# Adreswijzer. `make run` starts the embedded default on this machine; `make test` prepares
# what the tests need (.ci/prepare: Debian packages, Postgres and Redis running, npm packages)
# and runs the whole test suite; `make bench` measures against baselines taken in the same run.

GO       ?= go
DATA     ?= ../shared/data
ARTIFACTS ?= artifacts
export ADRESWIJZER_DATA ?= $(abspath $(DATA))
export ADRESWIJZER_ARTIFACTS ?= $(abspath $(ARTIFACTS))

WASM := widget/adreswijzer.wasm
# What the gateway serves under /widget/: the element's script, the shim and the core under
# content-hashed names, each precompressed (brotli, gzip).
WIDGET_DIST := widget/dist

.PHONY: all build run prepare test test-faults bench fuzz vet clean

all: build

build:
	$(GO) build -o bin/worker ./worker/cmd/worker
	$(GO) build -o bin/gateway ./caddymodule/cmd/gateway
	$(GO) build -o bin/demoshop ./widget/demo/cmd/demoshop
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -ldflags="-s -w" -gcflags="github.com/adreswijzer/adreswijzer/...=-l" -o $(WASM) ./wasm
	$(GO) run ./widget/cmd/widgetassets -wasm $(WASM) -out $(WIDGET_DIST) >/dev/null

# The embedded default: worker + gateway + demo shop, no Postgres or Redis.
run: build
	deploy/local/run

vet:
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./wasm/...
	$(GO) vet -tags faults ./bench/faults/...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

# What the tests need on this machine, installed or started when missing (root), or the one
# command that would (otherwise). Quick when everything is there.
prepare:
	.ci/prepare

# Every test, including the browser and agent-client end-to-end tests. A test that skips is
# a test that proves nothing, so the run fails when any test reports SKIP.
test: prepare build vet
	@mkdir -p $(ARTIFACTS)
	ADRESWIJZER_WASM=$(abspath $(WASM)) $(GO) test -count=1 -timeout 30m -json ./... > $(ARTIFACTS)/test.json; \
		status=$$?; \
		$(GO) run ./.ci/testreport $(ARTIFACTS)/test.json || status=1; \
		exit $$status

# Fault tests under load: kill a worker, stop Postgres and Redis, activate a dataset mid-load.
test-faults: prepare build
	@mkdir -p $(ARTIFACTS)
	$(GO) test -tags faults -count=1 -timeout 15m ./bench/faults/...

# Benchmarks with baselines measured in the same run; BENCH_ARGS shrinks them (e.g. -quick).
bench: build
	@mkdir -p $(ARTIFACTS)
	$(GO) run ./bench/cmd/bench -out $(ARTIFACTS)/bench.json $(BENCH_ARGS)

# Each fuzzer for FUZZTIME (default a minute): the parsers of what people type, of register
# files and snapshots, of agent requests, and the matching engine and form core behind them.
# Minimizing each new interesting input is bounded (FUZZMINIMIZE): unbounded, the snapshot
# reader's fuzzer spent whole runs shrinking inputs of a few kilobytes instead of trying new
# ones (the execs count `go test -fuzz` prints stood still).
# A failing input is still written and reported, only less shrunk.
FUZZTIME ?= 60s
FUZZMINIMIZE ?= 2s
FUZZERS := \
	.:FuzzNormalizePostcode .:FuzzRegisterForm .:FuzzParseHouseNumber .:FuzzParseAddressLine \
	./store/internal/xmlscan:FuzzTokens \
	./store/bag:FuzzReader ./store/bag:FuzzReaderMatchesEncodingXML \
	./store/best:FuzzSplitHouseNumber ./store/best:FuzzXMLAddresses ./store/best:FuzzLayoutAddresses \
	./store/best:FuzzOfficialCSV ./store/best:FuzzXMLReadersAgree \
	./store/memory:FuzzReadSnapshot \
	./worker/httpapi:FuzzRawValue ./internal/query:FuzzParseAsNetURL ./worker/messages:FuzzFill ./worker/match:FuzzValidate ./worker/match:FuzzCleanText ./worker/match:FuzzExactKeys ./worker/match:FuzzLooseSigs ./worker/carrier:FuzzFields ./worker/carrier:FuzzLineHelpers .:FuzzSplitFreeForm .:FuzzReadFields ./worker/mcpserver:FuzzSchemaMessage \
	./gateway/agentpolicy/rpcinspect:FuzzInspect \
	./gateway/codehost:FuzzCallback ./gateway/codehost:FuzzNormalizeEmail ./gateway/authserver:FuzzParseRegistration \
	./wasm/form:FuzzParse ./wasm/form:FuzzQuoted ./wasm/form:FuzzEvents

fuzz:
	@set -e; for f in $(FUZZERS); do \
		echo "fuzz $${f#*:} in $${f%%:*}"; \
		$(GO) test -run '^$$' -fuzz "^$${f#*:}$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) "$${f%%:*}"; \
	done

clean:
	rm -rf bin $(WASM) $(WIDGET_DIST) $(ARTIFACTS)
