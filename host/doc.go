// Package host is gem's runtime: running what extensions bring, behind the sandbox and the
// policy. host never prints and never names a gem command in its errors: it returns typed
// results and errors and takes interfaces for questions and output; the CLI
// (cmd/gem/cli, cmd/gem/internal/advice) says what to do about them.
//
// Its subpackages:
//   - [github.com/gemhost/gem/host/commands]: executable slash commands — the command table,
//     preparing and running one (gem run), the workspace and what a program needs.
//   - [github.com/gemhost/gem/host/sandbox]: the one launcher every subprocess goes through —
//     environment allowlist, namespaces and private view, Landlock, seccomp, limits, the
//     re-exec helper, failure classification.
//   - [github.com/gemhost/gem/host/toolchain]: what a launcher (npx, uvx, python…) needs to run
//     under the sandbox.
//   - [github.com/gemhost/gem/host/policy]: allow, deny or ask for every tool call; approval
//     modes; the audit log.
//   - [github.com/gemhost/gem/host/plugins]: go-plugin tool plugins — start, sessions, crash
//     restart, timeouts, host services.
//   - [github.com/gemhost/gem/host/mcp]: the MCP servers extensions declare, as clients.
//   - [github.com/gemhost/gem/host/tools]: the tool catalog over plugins and MCP servers —
//     names, conflicts, validation, policy, the tool cache; tools/genaiconv converts to genai.
//   - [github.com/gemhost/gem/host/mcpserve]: the tool catalog served over MCP (gem mcp serve).
//   - [github.com/gemhost/gem/host/agent]: the model loop, sessions, context files, skills,
//     prompt commands, hooks.
//   - [github.com/gemhost/gem/host/binfmt]: naming a binary's platform for clear exec errors.
package host
