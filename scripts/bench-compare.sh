#!/usr/bin/env bash
# bench-compare.sh REV: the start-up figures (gem --version, gem ext list --json on 1,000
# extensions, gem run hello world; gem-engine ext info, doctor --json) of the binaries built at REV against the current tree's, in
# one hyperfine run each (the machine is shared and noisy: only same-run ratios mean much).
# Needs git and go; installs hyperfine like bench.sh.
set -euo pipefail
rev=${1:?usage: scripts/bench-compare.sh <git revision>}
repo=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v hyperfine >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq hyperfine) >/dev/null 2>&1 || { echo "bench-compare.sh: cannot install hyperfine" >&2; exit 1; }
fi
export GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
export GOPROXY=$(go env GOPROXY | sed 's/,direct//')
work=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$work/base-src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$repo" worktree add --detach "$work/base-src" "$rev" >/dev/null 2>&1
(cd "$work/base-src" && go build -trimpath -ldflags '-s -w' -o "$work/base/gem" ./cmd/gem && go build -trimpath -ldflags '-s -w' -o "$work/base/gem-engine" ./cmd/gem-engine)
(cd "$repo" && go build -trimpath -ldflags '-s -w' -o "$work/new/gem" ./cmd/gem && go build -trimpath -ldflags '-s -w' -o "$work/new/gem-engine" ./cmd/gem-engine)
export HOME=$work/home GEM_HOME=$work/home/.gem
unset GEMINI_CLI_HOME
mkdir -p "$HOME/.gemini/extensions" "$work/proj"
"$repo/scripts/gen-extensions.sh" "$HOME/.gemini/extensions" 1000
cp -r "$repo/sample-extensions/hello" "$HOME/.gemini/extensions/hello"
(cd "$repo/sample-extensions/hello" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$HOME/.gemini/extensions/hello/bin/linux/x64/hello" ./cmd/hello)
cd "$work/proj"
sleep 2.1
for v in base new; do "$work/$v/gem" ext list >/dev/null; "$work/$v/gem" run hello world >/dev/null; done
runs=${RUNS:-100}
median() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print("%-60s %.2f ms" % (r["command"].replace(sys.argv[2]+"/", ""), r["median"]*1000)) for r in d["results"]]' "$1" "$work"; }
for what in "--version" "ext list --json" "run hello world"; do
  echo "== gem $what: $rev (base) vs the current tree (new), median of $runs"
  hyperfine -N --warmup 10 --runs "$runs" --export-json "$work/r.json" "$work/base/gem $what" "$work/new/gem $what" >/dev/null
  median "$work/r.json"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print("new/base: %.2fx" % (r[1]["median"]/r[0]["median"]))' "$work/r.json"
done
# gem-engine's own start-up, on verbs the front hands over (an unknown extension: no plugins run).
for what in "ext info nosuch" "doctor --json"; do
  echo "== gem-engine $what: $rev (base) vs the current tree (new), median of $runs"
  hyperfine -N -i --warmup 10 --runs "$runs" --export-json "$work/r.json" "$work/base/gem-engine $what" "$work/new/gem-engine $what" >/dev/null
  median "$work/r.json"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print("new/base: %.2fx" % (r[1]["median"]/r[0]["median"]))' "$work/r.json"
done
