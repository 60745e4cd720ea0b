#!/usr/bin/env bash
# gen-extensions.sh DIR N: write N realistic extensions under DIR (a fifth with install metadata).
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
  "contextFileName": "GEMINI.md",
  "commands": {"c$i": {"type": "executable", "binary": "\${extensionPath}/bin/\${platform}/\${arch}/c"}}
}
JSON
  if ((i % 5 == 0)); then
    printf '{\n  "source": "https://github.com/example/%s",\n  "type": "git"\n}\n' "$name" > "$dir/$name/.gemini-extension-install.json"
  fi
done
