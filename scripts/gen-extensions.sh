#!/usr/bin/env bash
# gen-extensions.sh DIR N: write N realistic extensions under DIR: each with an MCP server,
# a fifth with install metadata and an executable command whose binary exists.
set -euo pipefail
dir=$1; n=$2
mkdir -p "$dir"
for ((i = 0; i < n; i++)); do
  name=$(printf 'ext-%04d' "$i")
  mkdir -p "$dir/$name"
  cat > "$dir/$name/gemini-extension.json" <<JSON
{
  "name": "$name",
  "version": "1.$i.0",
  "description": "Extension number $i, with an MCP server and a command",
  "mcpServers": {"srv": {"command": "node", "args": ["\${extensionPath}/dist/server.js"], "env": {"A": "b"}}},
  "contextFileName": "GEMINI.md"$( ((i % 5 == 0)) && printf ',\n  "commands": {"c%d": {"type": "executable", "binary": "${extensionPath}/bin/${platform}/${arch}/c"}}' "$i")
}
JSON
  if ((i % 5 == 0)); then
    mkdir -p "$dir/$name/bin/linux/x64" && printf '#!/bin/sh\necho c\n' > "$dir/$name/bin/linux/x64/c" && chmod +x "$dir/$name/bin/linux/x64/c"
  fi
  if ((i % 5 == 0)); then
    printf '{\n  "source": "https://github.com/example/%s",\n  "type": "git"\n}\n' "$name" > "$dir/$name/.gemini-extension-install.json"
  fi
done
