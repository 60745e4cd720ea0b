#!/bin/sh
# bench-sdk.sh: the Go SDK's figures, as ratios measured in one run (the machine is shared):
# a typed tool through the agent's whole path (hooks, validation, policy, audit) and as a
# warm go-plugin against calling it directly, and the SDK's time to its first model request
# against gem -p's (needs make build).
set -e
cd "$(dirname "$0")/.."
export GOPROXY=$(go env GOPROXY | sed 's/,direct//')
go test -run '^$' -bench ToolCall -benchtime 5000x ./sdk/ | tee /tmp/gem-bench-sdk.txt
awk '/ToolCall\/direct/ {d=$3} /ToolCall\/agent/ {a=$3} /ToolCall\/plugin/ {p=$3}
  END {printf "agent path overhead: %.1f µs per call (agent %.1f µs, direct %.2f µs)\nwarm go-plugin / in-process agent: %.2fx\n", (a-d)/1000, a/1000, d/1000, p/a}' /tmp/gem-bench-sdk.txt
go test -run '^$' -bench FirstRequest -benchtime 10x ./cmd/gem/ | grep -E 'Benchmark'
