#!/usr/bin/env bash
# demo.sh: gem on the bundled sample extensions, in a demo home of its own
# (.cache/demo/home), never the real ~/.gemini.
set -euo pipefail
cd "$(dirname "$0")/.."
# Real paths: a checkout (or its .cache) reached through a link would give the demo a home
# whose extensions gem finds under another name than the one it granted.
repo=$(pwd -P)
gem=$repo/bin/gem
mkdir -p "$repo/.cache/demo"
demo=$(cd "$repo/.cache/demo" && pwd -P)

# Bold commands only on a terminal, and never with NO_COLOR (a log file gets plain text).
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
  say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
  note() { printf '\033[2m# %s\033[0m\n' "$*"; }
else
  say() { printf '\n$ %s\n' "$*"; }
  note() { printf '# %s\n' "$*"; }
fi

# The scripted stand-in for the Gemini API that gem -p talks to below, built here, before
# HOME moves to the demo home, with your Go caches (in the demo home they would be empty,
# and the build would start from nothing at every run); up to date, it is not rebuilt.
note "building the fake Gemini API server (scripts/fakegemini) into bin/, with your Go build cache"
go build -o "$repo/bin/fakegemini" ./scripts/fakegemini

rm -rf "$demo"
mkdir -p "$demo/home/.gemini/extensions" "$demo/project/.gemini/extensions"
# The project is a repository of its own (else the workspace would be gem's own checkout,
# which holds the demo home: gem refuses a workspace that holds the home folder).
git init -q "$demo/project"
export HOME=$demo/home GEM_HOME=$demo/home/.gem
unset GEMINI_CLI_HOME

cd "$demo/project"
say gem ext install sample-extensions/gallery --consent
"$gem" ext install "$repo/sample-extensions/gallery" --consent </dev/null 2>/dev/null
note "installing the other samples quietly: hello, welcome (also at project level), shell-tools, notes-mcp"
"$gem" ext install "$repo/sample-extensions/hello" --consent </dev/null >/dev/null 2>&1
"$gem" ext install "$repo/sample-extensions/welcome" --consent </dev/null >/dev/null 2>&1
"$gem" ext install "$repo/sample-extensions/shell-tools" --consent </dev/null >/dev/null 2>&1
"$gem" ext install "$repo/sample-extensions/notes-mcp" --consent </dev/null >/dev/null 2>&1
# a project-level copy of welcome, shadowed by the user one (Gemini CLI's rule: user first)
"$gem" ext install "$repo/sample-extensions/welcome" --consent --scope project </dev/null >/dev/null 2>&1

say gem --version;                 "$gem" --version
say gem ext list;                  "$gem" ext list
say gem ext list --all;            "$gem" ext list --all
say gem commands;                  "$gem" commands
say gem run gallery list;          "$gem" run gallery list
say gem run gallery search terraform; "$gem" run gallery search terraform
say gem run gallery show chrome-devtools-mcp; "$gem" run gallery show chrome-devtools-mcp
say gem run hello to gem;          "$gem" run hello to gem
say gem ext info hello;            "$gem" ext info hello
say gem ext validate "$repo/sample-extensions/hello"; "$gem" ext validate "$repo/sample-extensions/hello"
say gem tools list;                "$gem" tools list
say "gem tools call --yes run_shell_command '{\"command\":\"uname -sm\"}'"
"$gem" tools call --yes run_shell_command '{"command":"uname -sm"}'
say 'gem tools call --yes --batch   # a python3 REPL driven across calls, in one plugin session'
batch='{"tool":"run_shell_command","args":{"command":"python3 -q","ai_callback_pattern":">>> $"}}
{"tool":"send_input","args":{"handle":1,"input":"fib = lambda n: n if n < 2 else fib(n-1) + fib(n-2)","ai_callback_pattern":">>> $"}}
{"tool":"send_input","args":{"handle":1,"input":"[fib(i) for i in range(11)]","ai_callback_pattern":">>> $"}}
{"tool":"jobs"}'
echo "$batch"
echo "$batch" | "$gem" tools call --yes --batch | python3 -c 'import json,sys; [print("->", json.loads(l)["result"]["text"].replace("\n", "\n   ")) for l in sys.stdin]'
say gem mcp list;                  "$gem" mcp list
# MCP tools are asked about unless your own settings trust their server (never an extension's).
say 'echo '"'"'{"mcpServers": {"notes": {"trust": true}}}'"'"' > ~/.gemini/settings.json   # trust the notes server'
echo '{"mcpServers": {"notes": {"trust": true}}}' > "$HOME/.gemini/settings.json"
say "gem tools call mcp_notes_add_note '{\"title\":\"Try gem\",\"body\":\"plugins and MCP in one registry\",\"tags\":[\"demo\"]}'"
"$gem" tools call mcp_notes_add_note '{"title":"Try gem","body":"plugins and MCP in one registry","tags":["demo"]}'
say "gem tools call mcp_notes_search_notes '{\"query\":\"registry\"}'"
"$gem" tools call mcp_notes_search_notes '{"query":"registry"}'
say 'gem mcp serve   # every tool over MCP; here a bare MCP client (python, JSON-RPC on stdio) lists the tools and calls one'
python3 - "$gem" <<'PY'
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "mcp", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(msg):
    p.stdin.write(json.dumps(msg) + "\n"); p.stdin.flush()
def recv(id):
    # The answer to request id; notifications (logging, progress) may come first.
    for line in p.stdout:
        msg = json.loads(line)
        if msg.get("id") == id:
            return msg
    sys.exit("gem mcp serve ended before answering request %d" % id)
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "demo", "version": "1"}}})
print("-> server:", recv(1)["result"]["serverInfo"]["name"])
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
print("-> tools:", ", ".join(t["name"] for t in recv(2)["result"]["tools"]))
send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "mcp_notes_list_notes", "arguments": {}}})
print("-> mcp_notes_list_notes:", recv(3)["result"]["content"][0]["text"].strip())
p.stdin.close(); p.wait()
PY
say 'gem trust   # the demo project: --yes approves the model'"'"'s calls in trusted folders only'
"$gem" trust
say 'gem -p "…" --yes   # the model loop, against a scripted stand-in for the Gemini API (no key needed here)'
"$repo/bin/fakegemini" "$repo/scripts/demo-agent.json" > "$demo/fakegemini.url" &
fake=$!
for _ in $(seq 50); do [ -s "$demo/fakegemini.url" ] && break; sleep 0.1; done
GEM_GEMINI_BASE_URL=$(cat "$demo/fakegemini.url") GEMINI_API_KEY=demo "$gem" -p "What machine is this, and what do my notes say about gem?" --yes
kill "$fake" 2>/dev/null || true
# (into a file first: head closing the pipe early would end gem with SIGPIPE, and pipefail
# would fail the demo)
say "gem doctor | head -11"; "$gem" doctor > "$demo/doctor.txt"; head -11 "$demo/doctor.txt"
say "gem ext list --json | head -15"; "$gem" ext list --json > "$demo/list.json"; head -15 "$demo/list.json"
echo
echo "Demo home: $demo (remove it with: rm -rf $demo)"
echo "To use gem yourself: make install PREFIX=\$HOME/.local, put ~/.local/bin on PATH, and see README.md's quick start."
