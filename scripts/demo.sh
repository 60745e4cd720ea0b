#!/usr/bin/env bash
# demo.sh: gem on the bundled sample extensions, in a demo home of its own
# (.cache/demo/home), never the real ~/.gemini.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
gem=$repo/bin/gem
demo=$repo/.cache/demo
rm -rf "$demo"
mkdir -p "$demo/home/.gemini/extensions" "$demo/project/.gemini/extensions"
export HOME=$demo/home GEM_HOME=$demo/home/.gem
unset GEMINI_CLI_HOME

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

# Until `gem ext install` lands, the demo lays extensions out as an install would.
cp -r sample-extensions/hello "$HOME/.gemini/extensions/hello"
cp -r sample-extensions/welcome "$HOME/.gemini/extensions/welcome"
# a project-level copy of welcome, shadowed by the user one (Gemini CLI's rule: user first)
cp -r sample-extensions/welcome "$demo/project/.gemini/extensions/welcome"
cd "$demo/project"

say gem --version;                 "$gem" --version
say gem ext list;                  "$gem" ext list
say gem ext list --all;            "$gem" ext list --all
say gem ext info hello;            "$gem" ext info hello
say gem ext validate "$repo/sample-extensions/hello"; "$gem" ext validate "$repo/sample-extensions/hello"
say "gem ext list --json | head -15"; "$gem" ext list --json | head -15
echo
echo "Demo home: $demo (remove it with: rm -rf $demo)"
