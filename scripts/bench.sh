#!/usr/bin/env bash
# bench.sh: wall-clock figures of gem's commands as ratios against a baseline measured in
# the same run (the machine is shared and noisy). Needs bin/gem (make build); installs
# hyperfine from Debian's packages when it is missing (and make bench, bubblewrap).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x bin/gem ] || make build >/dev/null
if ! command -v hyperfine >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq hyperfine) >/dev/null 2>&1 || { echo "bench.sh: cannot install hyperfine" >&2; exit 1; }
fi
# The go benchmarks below keep the real module and build caches while HOME moves.
export GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home GEM_HOME=$work/home/.gem
unset GEMINI_CLI_HOME
mkdir -p "$HOME"
scripts/gen-extensions.sh "$HOME/.gemini/extensions" 1000
cd "$work"
gem=$OLDPWD/bin/gem
# Manifests changed in the last 2 s are not trusted by the discovery index (racy-clean
# rule); let the fresh ones age, then write the index once, as any earlier use of gem does.
sleep 2.1
"$gem" ext list >/dev/null
runs=${RUNS:-200}

# median wall time in ms of each command, from hyperfine's JSON export
median() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print("%s\t%.2f" % (r["command"], r["median"]*1000)) for r in d["results"]]' "$1"; }
# ratio FILE LABEL TARGET: the second command's median over the first's.
ratio() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print("ratio %s: %.2fx (target <= %s)" % (sys.argv[2], r[1]["median"]/r[0]["median"], sys.argv[3]))' "$@"; }

echo "== gem ext list --json on 1,000 extensions vs gem --version (median wall, $runs runs each)"
hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/list.json" \
  "$gem --version" "$gem ext list --json" >/dev/null
median "$work/list.json" | tee "$work/list.txt"
ratio "$work/list.json" "list/version" 3x

echo
echo "== gem ext list --json on 1,000 mixed-format extensions (a third Claude Code plugins, a third"
echo "   Antigravity plugins) vs gem --version (median wall, $runs runs each)"
mixed=$work/mixed
mkdir -p "$mixed"
"$OLDPWD/scripts/gen-extensions.sh" "$mixed/.gemini/extensions" 1000
i=0
for d in "$mixed"/.gemini/extensions/*/; do
  case $((i % 3)) in
    1) mkdir -p "$d.claude-plugin" && mv "$d/gemini-extension.json" "$d.claude-plugin/plugin.json" ;;
    2) mv "$d/gemini-extension.json" "$d/plugin.json" ;;
  esac
  i=$((i + 1))
done
sleep 2.1
HOME=$mixed GEM_HOME=$mixed/.gem "$gem" ext list >/dev/null
hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/mixed.json" \
  "env HOME=$mixed GEM_HOME=$mixed/.gem $gem --version" "env HOME=$mixed GEM_HOME=$mixed/.gem $gem ext list --json" >/dev/null
median "$work/mixed.json"
ratio "$work/mixed.json" "mixed list/version" 3x
[ "$(HOME=$mixed GEM_HOME=$mixed/.gem "$gem" ext list --json | grep -c '"name"')" -ge 1000 ] || { echo "bench.sh: the mixed set did not list 1,000 extensions" >&2; exit 1; }

echo
echo "== start-up: the light front (gem) vs the full engine (gem-engine)"
hyperfine -N --warmup 10 --runs 50 --export-json "$work/engine.json" "$gem --version" "$OLDPWD/bin/gem-engine --version" >/dev/null
median "$work/engine.json"

echo
echo "== gem ext install <local> --consent </dev/null, a small extension (target < 1 s)"
small=$work/small
mkdir -p "$small"
printf '{"name": "small", "version": "1.0.0", "contextFileName": "GEMINI.md"}\n' > "$small/gemini-extension.json"
echo "context" > "$small/GEMINI.md"
"$gem" ext install "$small" --consent </dev/null >/dev/null 2>&1
hyperfine -N --warmup 3 --runs 30 --export-json "$work/install.json" \
  --prepare "$gem ext uninstall small" "$gem ext install $small --consent" >/dev/null 2>&1
median "$work/install.json"
echo
echo "== gem ext update <name> with nothing to update (1,000 extensions installed)"
hyperfine -N --warmup 3 --runs 30 --export-json "$work/update.json" "$gem ext update small" >/dev/null 2>&1
median "$work/update.json"

echo
echo "== gem run hello vs running the same minimal Go binary directly (target <= 2.5x)"
rhome=$work/runhome
mkdir -p "$rhome/.gemini/extensions"
cp -r "$OLDPWD/sample-extensions/hello" "$rhome/.gemini/extensions/hello"
(cd "$OLDPWD/sample-extensions/hello" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$rhome/.gemini/extensions/hello/bin/linux/x64/hello" ./cmd/hello)
scripts_dir=$OLDPWD/scripts
"$scripts_dir/gen-extensions.sh" "$rhome/.gemini/extensions" 20
hello=$rhome/.gemini/extensions/hello/bin/linux/x64/hello
# Commands run in a project folder: gem refuses a workspace that holds the home folder.
mkdir -p "$work/proj"
(cd "$work/proj" && HOME=$rhome GEM_HOME=$rhome/.gem "$gem" run hello world)
sleep 2.1
HOME=$rhome GEM_HOME=$rhome/.gem "$gem" ext list >/dev/null
(cd "$work/proj" && HOME=$rhome GEM_HOME=$rhome/.gem hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/run.json" \
  "$hello world" "$gem run hello world" >/dev/null)
median "$work/run.json"
ratio "$work/run.json" "gem run/direct" 2.5x
echo "-- against a bare Go exec trampoline (Go's start-up and one execve; target <= 2x: gem run"
echo "   now runs as gem's child through the helper, in namespaces of its own)"
(cd "$OLDPWD" && go build -trimpath -ldflags '-s -w' -o "$work/trampoline" ./scripts/trampoline)
(cd "$work/proj" && HOME=$rhome GEM_HOME=$rhome/.gem hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/run-tramp.json" \
  "$work/trampoline $hello world" "$gem run hello world" >/dev/null)
median "$work/run-tramp.json"
ratio "$work/run-tramp.json" "gem run/trampoline" 2x
echo "   the same, interleaved (one run of each per round: drift stays out of the ratio), with"
echo "   floors and a reference in the same rounds, and gem run's ratio to each:"
echo "   - floor: the kernel's floor for gem run's boundary, the trampoline in the namespaces"
echo "     gem gives a program (user, mount, PID, IPC, network), made by unshare(1) alone"
echo "   - go-floor: the floor of a boundary set up by a Go program (Go cannot unshare a user"
echo "     namespace once it runs threads, nor fork without an exec, so the helper is a Go"
echo "     start of its own): one more Go start (a second trampoline) in the same namespaces"
echo "   - bwrap: Debian's bubblewrap (the mechanism of Gemini CLI's and Codex's sandboxes) with"
echo "     the namespaces and mounts gem's view makes for hello (the same program): targets"
echo "     gem run <= 1.0x bwrap and <= 1.3x the floor"
echo "   - go+bwrap: bwrap started by the trampoline, the floor of a Go front that hands the"
echo "     boundary to bwrap"
(cd "$OLDPWD" && go build -o "$work/interleave" ./scripts/interleave)
# gem's namespaces: user (but as root), mount, PID, IPC, network; the same flags for unshare.
ns=(--unshare-pid --unshare-ipc --unshare-net)
uflags=-mpfin
if [ "$(id -u)" != 0 ]; then ns+=(--unshare-user); uflags=-Urmpfin; fi
# gem's view for hello (host/sandbox/namespace_linux.go): everything read-only; /tmp, /var/tmp,
# /dev/shm, /run, /root, /var/lib, /nix and the home emptied (private tmpfs), with what the
# program was granted there bound back (the workspace and the extension read-only, its data
# and temporary folders writable, /var/lib's system folders read-only); the password files
# hidden; a /proc of its own; /dev the machine's, read-only.
ext=$rhome/.gemini/extensions/hello data=$rhome/.gem/data/hello tmpd=${TMPDIR:-/tmp}/gem-$(id -u)/hello
view=(--ro-bind / /)
for d in /tmp /var/tmp /dev/shm /run /root /var/lib /nix; do
  [ -d "$d" ] && [ ! -L "$d" ] && view+=(--tmpfs "$d")
done
for d in /var/lib/ca-certificates /var/lib/dbus /var/lib/gems /nix/store /nix/var/nix/profiles; do
  [ -e "$d" ] && view+=(--ro-bind "$d" "$d")
done
view+=(--ro-bind "$work/proj" "$work/proj" --tmpfs "$rhome" --ro-bind "$ext" "$ext" --bind "$data" "$data" --bind "$tmpd" "$tmpd")
for f in /etc/shadow /etc/gshadow /etc/sudoers /etc/shadow- /etc/gshadow-; do
  [ -f "$f" ] && view+=(--ro-bind /dev/null "$f")
done
[ -d /etc/sudoers.d ] && view+=(--tmpfs /etc/sudoers.d)
view+=(--proc /proc --chdir "$work/proj")
names=trampoline,gem,floor,go-floor
lines=("$work/trampoline $hello world" "$gem run hello world"
  "unshare $uflags $work/trampoline $hello world" "unshare $uflags $work/trampoline $work/trampoline $hello world")
if bwrap "${ns[@]}" "${view[@]}" "$hello" world >/dev/null 2>&1; then
  names+=,bwrap,go+bwrap
  lines+=("bwrap ${ns[*]} ${view[*]} $hello world" "$work/trampoline bwrap ${ns[*]} ${view[*]} $hello world")
else
  echo "   (bwrap missing or refused here: make bench installs it)"
fi
echo "   load before: $(uptime)"
(cd "$work/proj" && HOME=$rhome GEM_HOME=$rhome/.gem "$work/interleave" -runs 150 -names "$names" -subject 2 "${lines[@]}")
echo "   load after: $(uptime)"
echo "-- gem run hello world with 1,000 extensions installed vs 20, interleaved (what grows with"
echo "   the extensions: discovery, and the write roots no PATH entry may lie in)"
cp -r "$rhome/.gemini/extensions/hello" "$HOME/.gemini/extensions/hello"
sleep 2.1
(cd "$work/proj" && "$gem" run hello world >/dev/null)
(cd "$work/proj" && "$work/interleave" -runs 150 -names "20,1000" \
  "env HOME=$rhome GEM_HOME=$rhome/.gem $gem run hello world" "env HOME=$HOME GEM_HOME=$GEM_HOME $gem run hello world")
echo "-- without the namespace layer (GEM_SANDBOX_NAMESPACES=off, as where AppArmor forbids them):"
echo "   gem run goes through the helper, which stays beside the program as the judge of its"
echo "   connects (target <= 2x the trampoline, interleaved)"
(cd "$work/proj" && HOME=$rhome GEM_HOME=$rhome/.gem "$work/interleave" -runs 150 "env GEM_SANDBOX_NAMESPACES=off $work/trampoline $hello world" "env GEM_SANDBOX_NAMESPACES=off $gem run hello world")
echo "-- the same with the sandbox off (GEM_SANDBOX=off): the sandbox's own cost on gem run"
(cd "$work/proj" && HOME=$rhome GEM_HOME=$rhome/.gem GEM_SANDBOX=off hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/run-nosandbox.json" \
  "$hello world" "$gem run hello world" >/dev/null)
median "$work/run-nosandbox.json"
python3 - "$work/run.json" "$work/run-nosandbox.json" <<'PY'
import json, sys
on = json.load(open(sys.argv[1]))["results"][1]["median"]
off = json.load(open(sys.argv[2]))["results"][1]["median"]
print("sandbox cost on gem run: %.2f ms (%.2fx)" % ((on - off) * 1000, on / off))
PY

echo
echo "== gem tools list: one npx-started MCP server whose list is cached vs no extension at all"
echo "   (in one run; target <= 1.2x: nothing starts)"
thome=$work/toolshome
benchmcp=$OLDPWD/scripts/bench-mcp
mkdir -p "$thome/proj" "$thome/.npm" "$thome/empty/proj"
(cd "$thome/proj" && git init -q . && HOME=$thome GEM_HOME=$thome/.gem "$gem" ext link "$benchmcp" --consent >/dev/null 2>&1 \
  && HOME=$thome GEM_HOME=$thome/.gem "$gem" tools list | grep -q mcp_bench_ping) || { echo "bench.sh: the npx MCP server did not list its tool" >&2; exit 1; }
(cd "$thome/empty/proj" && git init -q .)
hyperfine -N --warmup 5 --runs 60 --export-json "$work/toolslist.json" \
  "env HOME=$thome/empty GEM_HOME=$thome/empty/.gem sh -c 'cd $thome/empty/proj && exec $gem tools list'" \
  "env HOME=$thome GEM_HOME=$thome/.gem sh -c 'cd $thome/proj && exec $gem tools list'" >/dev/null
median "$work/toolslist.json"
ratio "$work/toolslist.json" "tools list cached/none" 1.2x

echo
echo "== plugins: cold start (launch + handshake + ListTools) vs plain fork/exec of the same binary,"
echo "   interleaved, medians of 200 (target <= 1.3x)"
cd "$OLDPWD"
GEM_SANDBOX_HELPER="$PWD/bin/gem" go test -run '^$' -bench 'ColdStart' -benchtime 200x ./host/plugins/ | grep -E '^Benchmark'
echo
echo "== plugins: warm call through the whole host path (registry, schema validation, session"
echo "   plugin, gRPC, result), 5,000 calls (targets p50 <= 300 µs, p99 <= 1000 µs)"
go test -run '^$' -bench 'HostCall' -benchtime 5000x ./host/tools/ | grep -E '^Benchmark'

echo
echo "== gem ext sync: a lock of 20 extensions (archives from 127.0.0.1, 30 ms per request)"
echo "   fetched one by one (jobs=1) vs four at once (jobs=4, the default), 5 runs each"
go test -run '^$' -bench 'SyncLock' -benchtime 5x ./registry/install/ | grep -E '^Benchmark' | tee "$work/sync.txt"
python3 -c 'import sys,re; v=[float(re.split(r"\s+",l)[2]) for l in open(sys.argv[1])]; print("ratio sync jobs=1/jobs=4: %.2fx faster in parallel" % (v[0]/v[1]))' "$work/sync.txt"
echo
echo "== signatures: one Sigstore bundle verified (a cosign bundle, a GitHub attestation), then"
echo "   the install of one archive extension unsigned vs with its signature checked"
go test -run '^$' -bench 'Verify' -benchtime 200x ./registry/signature/ | grep -E '^Benchmark'
go test -run '^$' -bench 'InstallSigned' -benchtime 50x ./registry/install/ | grep -E '^Benchmark' | tee "$work/signed.txt"
python3 -c 'import sys,re; v=[float(re.split(r"\s+",l)[2]) for l in open(sys.argv[1])]; print("ratio install signed/unsigned: %.2fx (+%.2f ms per extension)" % (v[1]/v[0], (v[1]-v[0])/1e6))' "$work/signed.txt"
echo
echo "== MCP: the notes sample server (stdio) started through gem vs with the SDK directly"
echo "   (start, initialize, tool list, stop), interleaved, medians of 100; then a warm"
echo "   tools/call through gem's client vs the SDK's session, 2,000 calls"
go test -run '^$' -bench 'MCPColdStart' -benchtime 100x ./host/mcp/ | grep -E '^Benchmark'
go test -run '^$' -bench 'MCPWarmCall' -benchtime 2000x ./host/mcp/ | grep -E '^Benchmark'
echo
echo "== MCP: warm call through the whole host path (registry, validation, MCP over stdio), 5,000 calls"
go test -run '^$' -bench 'MCPHostCall' -benchtime 5000x ./host/tools/ | grep -E '^Benchmark'

echo
echo "== sandbox: /bin/true started through the re-exec helper (gem's front: Landlock, limits) vs"
echo "   a plain fork/exec, interleaved, medians of 200"
GEM_SANDBOX_HELPER="$PWD/bin/gem" go test -run '^$' -bench 'SandboxStart' -benchtime 200x ./host/sandbox/ | grep -E '^Benchmark'

echo
echo "== the workspace guard: file-heavy jobs in a workspace a program may write (10,000-file"
echo "   unpack; the same plus git init and git add with GIT_DIR in its data folder; a git clone"
echo "   of that tree's repository, its git folder in the data folder; npm install of a 500-file"
echo "   package), with the guard vs no sandbox vs the sandbox without the guard, interleaved,"
echo "   medians of 5 (targets: guard/plain <= 2x on the unpack, <= 1.2x on the clone and npm)"
echo "   load before: $(uptime)"
go test -run '^$' -bench 'BenchmarkGuard' -benchtime 5x ./host/sandbox/ | grep -E '^Benchmark'
echo "   load after: $(uptime)"

echo
echo "== agent: the loop's own cost per tool call (model replaced by a local fake): time in the"
echo "   turn for one call vs the same registry call made directly, p50 of 500"
go test -run '^$' -bench 'ToolCallOverhead' -benchtime 500x ./host/agent/ | grep -E '^Benchmark'

echo
echo "== sandbox: what a network namespace adds to a start (root), and what the strict sandbox's"
echo "   pids cgroup adds to a sandboxed plugin's cold start"
go test -run '^$' -bench 'NetworkNamespace' -benchtime 100x ./host/sandbox/ | grep -E '^Benchmark'
GEM_SANDBOX_STRICT=1 GEM_SANDBOX_HELPER="$PWD/bin/gem" go test -run '^$' -bench 'ColdStartSandboxed' -benchtime 100x ./host/plugins/ | grep -E '^Benchmark'

echo
echo "== capabilities: working out one MCP server's needs (launcher profile and toolchain on"
echo "   PATH), done at consent and before each start (target < 5 ms an extension)"
go test -run '^$' -bench 'BenchmarkFor' -benchtime 2000x ./host/toolchain/ | grep -E '^Benchmark'

# As a normal user the namespace layer includes a user namespace (root does without): measured
# here as the user gemtest that the attack tests create, when bench.sh runs as root.
if [ "$(id -u)" = 0 ] && id gemtest >/dev/null 2>&1 && command -v setpriv >/dev/null; then
  echo
  echo "== plugins: sandboxed cold start vs plain fork/exec as a normal user (gemtest), medians of 100"
  ud=$(mktemp -d /home/gemtest/gem-bench.XXXXXX)
  go test -c -o "$ud/plugins.test" ./host/plugins/
  go build -o "$ud/echoplugin" ./host/plugins/testdata/echoplugin
  chmod -R a+rX "$ud"
  (cd host/plugins && setpriv --reuid=gemtest --regid=gemtest --init-groups env HOME=/home/gemtest \
    GEM_TEST_ECHOPLUGIN="$ud/echoplugin" GEM_SANDBOX_HELPER="$PWD/../../bin/gem" PATH="$PATH" \
    "$ud/plugins.test" -test.run '^$' -test.bench 'ColdStart' -test.benchtime 100x | grep -E '^Benchmark')
  rm -rf "$ud"
fi

echo
echo "== gem acp: session/prompt to the first agent_message_chunk, gem vs gemini --acp vs the floor agent (fake model; target ratio <= 0.1; floor-ratio is the least any agent gets here)"
go test -run '^$' -bench 'ACPFirstChunk' -benchtime 20x ./cmd/gem/ | grep -E '^Benchmark'
echo "== gem's own work to the first chunk, the ACP server in the process (no process boundary)"
go test -run '^$' -bench 'PromptFirstChunk' -benchtime 300x ./sdk/acp/ | grep -E '^Benchmark'
echo "-- one streamed request to its first chunk, gem's own Gemini wire encoding vs genai's (same run)"
go test -run '^$' -bench 'BenchmarkWire$' -benchtime 300x ./host/agent/ | grep -E '^Benchmark'
echo "== discovery of 1,000 extensions, a third of them Claude Code plugins, vs 1,000 Gemini extensions (target ratio about 1)"
go test -run '^$' -bench 'Discover1000Mixed' -benchtime 50x ./registry/ | grep -E '^Benchmark'
echo "== preparing gem run (discovery, command table, the program's environment and sandbox) with 1,000"
echo "   extensions agreed to vs 20, interleaved (ratio: what is left grows with discovery alone)"
go test -run '^$' -bench 'PrepareRun1000' -benchtime 50x ./host/commands/ | grep -E '^Benchmark'
