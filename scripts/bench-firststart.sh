#!/usr/bin/env bash
# bench-firststart.sh: the first and the second start of an npx-started MCP server (its
# package downloaded from an npm registry on 127.0.0.1) and of a Python server in a venv,
# gem against Gemini CLI on the same home, in one run (the machine is shared and noisy: only
# same-run ratios mean much). "First": npm's cache (and gem's tool-list cache) emptied before
# each run; "second": as left by the run before. Each figure is the wall time of `mcp list`,
# which starts the server and lists its tools, in both programs.
# Needs bin/gem (make build), Gemini CLI in .cache/npm (make test-deps), node, npm, python3;
# installs hyperfine from Debian's packages when it is missing.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$repo/bin/gem" ] || make -C "$repo" build >/dev/null
gemini=$repo/.cache/npm/node_modules/.bin/gemini
[ -x "$gemini" ] || { echo "bench-firststart.sh: Gemini CLI is missing: make test-deps" >&2; exit 1; }
if ! command -v hyperfine >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq hyperfine) >/dev/null 2>&1 || { echo "bench-firststart.sh: cannot install hyperfine" >&2; exit 1; }
fi
# Outside /tmp: the sandbox opens /tmp, which would hide what a fresh home needs.
work=$(python3 -c 'import os; print(os.path.expanduser("~/.cache"))')/gem-bench-firststart
rm -rf "$work"
mkdir -p "$work"
registry_pid=
trap '[ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null; rm -rf "$work"' EXIT
export HOME=$work/home GEM_HOME=$work/home/.gem GEMINI_CLI_TRUST_WORKSPACE=true
unset GEMINI_CLI_HOME NPM_CONFIG_CACHE npm_config_cache
mkdir -p "$HOME/.gemini" "$HOME/proj" "$work/registry"
git -C "$HOME/proj" init -q # in the home: enable and disable act on it

# An npm registry on 127.0.0.1 serving the bench server's package (metadata and tarball).
(cd "$repo/scripts/bench-mcp/server" && npm pack --silent --pack-destination "$work/registry" >/dev/null)
rm -rf "$HOME/.npm" # npm pack keeps the tarball in its cache
cat >"$work/registry.js" <<'EOF'
const http = require('http'), fs = require('fs'), path = require('path'), crypto = require('crypto');
const dir = process.argv[2];
const tgz = fs.readdirSync(dir).find((f) => f.endsWith('.tgz'));
const data = fs.readFileSync(path.join(dir, tgz));
const srv = http.createServer((req, res) => {
  const base = 'http://' + req.headers.host + '/';
  if (req.url.includes('/-/')) { res.end(data); return; }
  if (req.url !== '/gem-bench-mcp') { res.statusCode = 404; res.end(); return; }
  const integrity = 'sha512-' + crypto.createHash('sha512').update(data).digest('base64');
  const shasum = crypto.createHash('sha1').update(data).digest('hex');
  const v = {name: 'gem-bench-mcp', version: '1.0.0', bin: {'gem-bench-mcp': 'server.js'},
    dist: {tarball: base + 'gem-bench-mcp/-/' + tgz, integrity, shasum}};
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({name: 'gem-bench-mcp', 'dist-tags': {latest: '1.0.0'}, versions: {'1.0.0': v}}));
});
srv.listen(0, '127.0.0.1', () => { fs.writeFileSync(process.argv[3], String(srv.address().port)); });
EOF
node "$work/registry.js" "$work/registry" "$work/port" &
registry_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
printf 'registry=http://127.0.0.1:%s/\nupdate-notifier=false\nfund=false\naudit=false\n' "$(cat "$work/port")" >"$HOME/.npmrc"

# The two extensions: npx -y from the registry; a stdlib-only server in a venv in the home.
mkdir -p "$work/npx-srv" "$work/venv-srv"
echo '{"name": "npx-srv", "version": "1.0.0", "mcpServers": {"npxsrv": {"command": "npx", "args": ["-y", "gem-bench-mcp"]}}}' >"$work/npx-srv/gemini-extension.json"
python3 -m venv "$HOME/.venvs/srv"
cat >"$work/venv-srv/server.py" <<'EOF'
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "venv", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": [{"name": "ping", "description": "Answers pong", "inputSchema": {"type": "object", "properties": {}}}]}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
EOF
printf '{"name": "venv-srv", "version": "1.0.0", "mcpServers": {"venvsrv": {"command": "%s", "args": ["${extensionPath}/server.py"]}}}\n' "$HOME/.venvs/srv/bin/python3" >"$work/venv-srv/gemini-extension.json"
cd "$HOME/proj"
"$repo/bin/gem" ext install "$work/npx-srv" --consent </dev/null >/dev/null 2>&1
"$repo/bin/gem" ext install "$work/venv-srv" --consent </dev/null >/dev/null 2>&1

runs=${RUNS:-5}
median() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print("  %-34s %8.0f ms" % (sys.argv[2+i], r["median"]*1000)) for i, r in enumerate(d["results"])]' "$@"; }
ratio() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print("  gem / Gemini CLI: %.2fx" % (r[0]["median"]/r[1]["median"]))' "$1"; }
# The baseline: each program's own start, with no server to start (Gemini CLI's start-up of
# several seconds varies more from run to run than its servers' starts take).
"$repo/bin/gem" ext disable npx-srv >/dev/null 2>&1
"$repo/bin/gem" ext disable venv-srv >/dev/null 2>&1
echo "== baseline: mcp list with no server, median of $runs"
hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$work/base.json" "$repo/bin/gem mcp list" "$gemini mcp list" >/dev/null
median "$work/base.json" "gem mcp list" "gemini mcp list"
ratio "$work/base.json"
for ext in npx-srv venv-srv; do
  other=venv-srv
  [ "$ext" = venv-srv ] && other=npx-srv
  "$repo/bin/gem" ext enable "$ext" >/dev/null 2>&1
  "$repo/bin/gem" ext disable "$other" >/dev/null 2>&1
  [ "$("$repo/bin/gem" mcp list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 1 ] || { echo "bench-firststart.sh: not $ext alone" >&2; exit 1; }
  "$repo/bin/gem" mcp list >/dev/null 2>&1 || { echo "bench-firststart.sh: gem mcp list fails for $ext:" >&2; "$repo/bin/gem" mcp list >&2 || true; exit 1; }
  "$gemini" mcp list 2>&1 | grep -q ' - Connected' || { echo "bench-firststart.sh: Gemini CLI does not connect to $ext:" >&2; "$gemini" mcp list >&2 || true; exit 1; }
  clear="rm -rf $HOME/.npm $GEM_HOME/cache/mcp-tools; find $work/venv-srv $HOME/.gemini/extensions -name __pycache__ -prune -exec rm -rf {} +"
  echo "== $ext: first start (npm cache and tool cache emptied before each run), median of $runs"
  hyperfine -N -i --runs "$runs" --prepare "sh -c '$clear'" --export-json "$work/first.json" \
    "$repo/bin/gem mcp list" "$gemini mcp list" >/dev/null
  median "$work/first.json" "gem mcp list" "gemini mcp list"
  ratio "$work/first.json"
  echo "== $ext: second start (caches as the run before left them), median of $runs"
  hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$work/second.json" \
    "$repo/bin/gem mcp list" "$gemini mcp list" >/dev/null
  median "$work/second.json" "gem mcp list" "gemini mcp list"
  ratio "$work/second.json"
done
