GO ?= go
BIN := bin/runx

.PHONY: build test chaos fuzz test-race test-race-mcp lint bench bench-check bench-baseline proto install-tools

build:
	$(GO) build -o $(BIN) ./cmd/runx

# The whole suite: unit, plugin, conformance and CLI scenario tests.
test:
	$(GO) test -count=1 -timeout 14m ./...

# The crash campaign: runs that write files, run commands and make
# connector writes, interrupted at random points by SIGKILL, SIGINT and
# SIGTERM to runx's process group, then resumed or closed; it fails on a
# lost decision, a doubled effect, a run left failed or stuck, or a tree
# that does not verify, and prints its figures. Seeded: the seed is
# printed, and RUNX_CHAOS_SEED=<seed> replays it (cmd/runx/chaos_test.go).
chaos:
	RUNX_CHAOS=1 $(GO) test -count=1 -timeout 8m -run '^TestChaos$$' -v ./cmd/runx

# Fuzz each host-document and package-file reader for FUZZTIME: resume
# documents, --inputs documents, the duplicate-key walk, run.yaml, SKILL.md
# and connector.yaml (each asserts a typed refusal or success, no panic,
# and for package files allocation linear in the input). Their seed corpora
# run in every `go test`; this is the long search, not part of CI (six
# targets take about four minutes with their builds).
FUZZTIME ?= 30s
FUZZ_TARGETS := ./kernel/run/resumedoc:FuzzResumeDocument ./kernel/pkg:FuzzInputsDocument \
	./kernel/contract:FuzzDuplicateKey ./kernel/pkg:FuzzDecodeProfile \
	./kernel/pkg:FuzzSkillMD ./kernel/pkg:FuzzConnector
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

# The race detector over the packages where goroutines meet: the plugin
# host (supervision, cancels, concurrent invokes) and the run engine (turn
# calls made at once, fan-out, batched records, cancels). Bounded: the race
# build of the embedded SQLite is the long part, and the rest of the suite
# runs without -race (docs/decisions/testing-and-ci.md, "Race detector in CI").
RACE_PKGS := ./kernel/host ./kernel/run
test-race:
	$(GO) test -race -count=1 -timeout 10m $(RACE_PKGS)

# The MCP server's calls at once under the race detector. Not in CI: its
# race build links every plugin (goja, esbuild, gRPC), about 12 minutes
# cold here (docs/decisions/testing-and-ci.md, "Race detector in CI").
test-race-mcp:
	$(GO) test -race -count=1 -timeout 10m ./kernel/mcp

# staticcheck is pinned and run through the module proxy, so every machine
# runs the same version without installing anything by hand.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

bench:
	$(GO) run ./bench/report -out docs/PERFORMANCE.md

# The performance gate: steady figures (allocations, bytes, spawns, CPU
# time) of a fast subset of the workloads against bench/baseline.json.
bench-check:
	$(GO) run ./bench/report -check bench/baseline.json

# Take the gate's baseline again, after a deliberate change.
bench-baseline:
	$(GO) run ./bench/report -write-baseline bench/baseline.json

proto:
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" protoc -I sdk/proto \
		--go_out=sdk/proto/pluginv1 --go_opt=paths=source_relative \
		--go-grpc_out=sdk/proto/pluginv1 --go-grpc_opt=paths=source_relative \
		runx/plugin/v1/plugin.proto
	mv sdk/proto/pluginv1/runx/plugin/v1/*.go sdk/proto/pluginv1/ && rm -rf sdk/proto/pluginv1/runx

install-tools:
	$(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	$(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
