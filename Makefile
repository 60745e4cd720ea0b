# gem — build, test, demo and benchmark. Everything the tests need is built or installed here.
SHELL := /bin/bash
# Use the module proxy only: a fallback to "direct" hangs without network.
export GOPROXY := $(shell go env GOPROXY | sed 's/,direct//')
export GOFLAGS := -mod=mod

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/gemhost/gem/internal/buildinfo.Version=$(VERSION)
BIN := bin

.PHONY: all build install dist test demo samples bench fuzz lint proto clean tools test-deps docs

# Where make install puts gem and gem-engine (they must stay side by side).
PREFIX ?= /usr/local

all: build

build:
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/gem ./cmd/gem
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/gem-engine ./cmd/gem-engine

# Installs both binaries into $(PREFIX)/bin (gem execs gem-engine from beside itself).
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN)/gem $(BIN)/gem-engine $(DESTDIR)$(PREFIX)/bin/

# Release archives for linux and darwin, amd64 and arm64, with SHA256SUMS, in dist/.
dist:
	VERSION=$(VERSION) scripts/dist.sh dist

samples:
	@for d in sample-extensions/*/; do \
	  if [ -f $$d/Makefile ]; then $(MAKE) -C $$d || exit 1; fi; done

# Tools the tests drive (tmux for the interactive shell, git, ripgrep for grep_search, zsh and
# fish for their completion scripts);
# installed from Debian when missing.
tools:
	@command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux >/dev/null; } || echo "warning: tmux missing; the shell test will be skipped"
	@command -v git >/dev/null || { apt-get update -qq && apt-get install -y -qq git >/dev/null; } || echo "warning: git missing; git tests will be skipped"
	@command -v rg >/dev/null || { apt-get update -qq && apt-get install -y -qq ripgrep >/dev/null; } || echo "warning: ripgrep missing; its search tests will be skipped"
	@command -v zsh >/dev/null && command -v fish >/dev/null || { apt-get update -qq && apt-get install -y -qq zsh fish >/dev/null; } || echo "warning: zsh or fish missing; their completion tests will be skipped"
	@command -v docker-registry >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-registry >/dev/null; } || echo "warning: docker-registry missing; the OCI push/install test will be skipped"

# npm packages the tests drive, at pinned versions, in .cache/npm: Gemini CLI, to compare
# gem -p's JSON formats with its own (gemini_json.txtar) and gem acp's speed with gemini
# --acp's; acpx, the headless ACP client that drives gem acp (acp.txtar).
GEMINI_CLI_VERSION := 0.61.0
ACPX_VERSION := 0.19.1
test-deps:
	@mkdir -p .cache/npm
	@if [ "$$(node -p 'require("./.cache/npm/node_modules/@google/gemini-cli/package.json").version' 2>/dev/null)" != "$(GEMINI_CLI_VERSION)" ] || \
	    [ "$$(node -p 'require("./.cache/npm/node_modules/acpx/package.json").version' 2>/dev/null)" != "$(ACPX_VERSION)" ]; then \
	  echo "installing @google/gemini-cli@$(GEMINI_CLI_VERSION) and acpx@$(ACPX_VERSION) into .cache/npm"; \
	  npm install --prefix .cache/npm --no-audit --no-fund --silent @google/gemini-cli@$(GEMINI_CLI_VERSION) acpx@$(ACPX_VERSION); fi

test: export GEM_REQUIRE_GEMINI_CLI := 1
test: build samples tools test-deps
	go vet ./...
	cd pluginsdk && go vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go test -timeout 12m ./...
	go test -race -timeout 5m ./host/...
	cd pluginsdk && go test -timeout 3m ./...

demo: build samples
	scripts/demo.sh

# Regenerates the command-line reference in docs/cli from the app's command tree (committed;
# TestCLIReferenceIsCurrent fails when it is stale).
docs:
	go generate ./cmd/gem/cli

# bubblewrap: scripts/bench.sh compares gem run with it (Gemini CLI's and Codex's sandbox).
bench: build
	@command -v bwrap >/dev/null || { apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; } || echo "warning: bubblewrap missing; bench.sh leaves out its line"
	go test -run '^$$' -bench . -benchtime 200x ./registry/
	scripts/bench.sh

# Short fuzz runs of every fuzz target (FUZZTIME=1m for longer).
FUZZTIME ?= 10s
fuzz:
	go test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./manifest/
	go test -run '^$$' -fuzz '^FuzzExpand$$' -fuzztime $(FUZZTIME) ./manifest/
	go test -run '^$$' -fuzz '^FuzzManifest$$' -fuzztime $(FUZZTIME) ./manifest/validate/
	go test -run '^$$' -fuzz '^FuzzExtract$$' -fuzztime $(FUZZTIME) ./registry/install/
	go test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./registry/lockfile/
	go test -run '^$$' -fuzz '^FuzzSanitizeName$$' -fuzztime $(FUZZTIME) ./host/mcp/
	go test -run '^$$' -fuzz '^FuzzPackageOf$$' -fuzztime $(FUZZTIME) ./host/toolchain/payload/
	go test -run '^$$' -fuzz '^FuzzReadTree$$' -fuzztime $(FUZZTIME) ./host/toolchain/payload/
	go test -run '^$$' -fuzz '^FuzzWireResponse$$' -fuzztime $(FUZZTIME) ./host/agent/

lint:
	go vet ./...
	cd pluginsdk && go vet ./...
	go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }

# Regenerates the plugin protocol's Go code (committed: builds and CI need no protoc).
proto:
	command -v protoc >/dev/null || { apt-get update -qq && apt-get install -y -qq protobuf-compiler; }
	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
	PATH="$$PATH:$$(go env GOPATH)/bin" protoc --go_out=. --go_opt=paths=source_relative \
	  --go-grpc_out=. --go-grpc_opt=paths=source_relative pluginsdk/proto/gemplugin1.proto

clean:
	rm -rf $(BIN) dist
