#!/bin/sh
# Runs this machine's build of the server, bin/<platform>/<arch>/notes-mcp (Node's names, as
# gem's ${platform}/${arch}): one command line that gem and Gemini CLI both run (Gemini CLI
# does not expand ${platform} or ${arch}).
here=$(dirname "$0")
case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) echo "notes-mcp: no build for $(uname -s)" >&2; exit 1 ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=x64 ;;
aarch64 | arm64) arch=arm64 ;;
*) echo "notes-mcp: no build for $(uname -m)" >&2; exit 1 ;;
esac
exec "$here/bin/$os/$arch/notes-mcp" "$@"
