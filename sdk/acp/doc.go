// Package acp serves an agent made with the SDK over the Agent Client Protocol (ACP v1):
// JSON-RPC 2.0 on stdio, one message per line, so that editors (Zed, JetBrains, Neovim
// plugins) and headless clients (acpx) drive it. `gem acp` is Serve with gem's own options;
// any program built on the SDK can serve its agent the same way.
//
// The protocol layer is github.com/coder/acp-go-sdk (Apache-2.0, generated from the
// published schema, maintained by Coder for its own agents): the schema's unions and
// validation are tedious and easy to get subtly wrong by hand, and the library adds nothing
// but the protocol. It is pinned at an explicit version (the module proxy's list lags).
//
// What is served, and what was chosen where the protocol leaves it open:
//   - One SDK agent per session: session/new composes it for the session's cwd (an
//     existing absolute folder) as gem -p would (settings, extensions and, in a trusted
//     folder only, the project's configuration); an untrusted cwd says so in the session's
//     first update. The client's MCP servers (stdio, http, sse) join the agent as the
//     user's settings servers do: sandboxed, their tools decided by the policy, never
//     inheriting the trust of a user's server of the same name.
//   - Prompts: text, images (png, jpeg, webp, heic, heif, inline to the model), embedded
//     text resources (added under their URI, never expanded) and resource links to files
//     (added as @path, read through the workspace rules). Only what the user typed is
//     expanded as gem -p expands it: /prompt-command, /mcp-prompt, /skill, @path.
//   - Turns stream agent_message_chunk, agent_thought_chunk, tool_call (kind, title,
//     locations, raw input) and tool_call_update (status, output; an edit of a file as a
//     diff of the file before and after; while the call runs, its live output so far, as
//     a tool sends it with pluginsdk.Output), plan updates from write_todos, and a usage_update
//     at the end; stop reasons end_turn, cancelled, max_turn_requests. session/cancel
//     cancels the turn's context: the model request stops, the sandbox kills the
//     running tool's process group (shell-tools stops a command whose call was cancelled)
//     and a program tool's SessionContext is done.
//   - Questions to the user (the model's ask_user, a program tool's SessionContext.Ask and
//     Confirm) go to a client that advertises form elicitation (clientCapabilities
//     .elicitation.form, unstable in ACP) as elicitation/create: a form of one field,
//     "answer" (a string, one of the options, several, or a boolean), scoped to the session
//     and the running call (sessionId, toolCallId: lifted into the params from _meta, as
//     acp-go-sdk v0.13.0's type lacks them). Declined or dismissed is no answer. A client
//     without it is not asked: ask_user fails for the model to decide, as gem -p without a
//     terminal. (acpx 0.19's CLI answers no elicitation; its runtime library does.)
//   - Every question gem's policy asks becomes session/request_permission with the
//     terminal's text (escaped) and the terminal's answers: allow_once, allow_always (this
//     session), allow_always_save (kind allow_always: saved as a rule in the user's
//     ~/.gem/policies.toml, the terminal's "save always") and reject_once; hooks'
//     Notification fires first, as on the terminal.
//   - Modes default, autoEdit, yolo and plan (Gemini CLI's ids) through session/set_mode
//     and also as the "mode" config option (ready for v2's modes-as-options); the model is
//     the "model" config option. The mode is saved with the session: load and resume
//     restore it where it is still allowed (yolo needs a trusted folder).
//   - available_commands_update lists gem's built-in commands (/compress, /memory, /stats,
//     /tools, /mcp, /chat, /model, /agents, /help, /extensions, /commands, /history: gem
//     shell's, from one table; /history is the session's prompts),
//     the prompt commands, the MCP servers' prompts and the skills, sent just after the
//     session is made (listing the prompts starts the servers: in the background, as Gemini
//     CLI does). A prompt naming a built-in runs it: what it shows is the agent's message
//     and the turn ends without asking the model.
//   - session/load replays a saved session (gem -p's and the shell's too) as updates;
//     session/resume continues one without replaying; list and close.
//   - Files and the shell stay in gem's own sandboxed tools. A client that advertises
//     fs.readTextFile is asked for the text of the workspace files the core tools read, so
//     the model sees the editor's unsaved buffers — only when that text cannot be another
//     file's: a regular file inside the workspace reached through no link, whose folder no
//     program gem started may change from before the question until after the answer
//     (host/sandbox WatchWrites: no running program may write that folder or one above it,
//     and none that may started meanwhile); otherwise the model gets the file as gem reads
//     it (by descriptor, beneath the workspace). Why this and not checks around the
//     question: the editor reads by path, following links, with the user's rights, so a
//     sandboxed program that swaps the file for a link to ~/.ssh/id_rsa and back between
//     gem's checks would hand the model the key; and comparing the editor's text with the
//     file gem holds open would refuse exactly the unsaved text the question is for. The
//     cost: while a program that may write the workspace runs (an MCP server with the
//     workspace capability, the user's settings servers, a shell command), the model reads
//     what is saved. A program without a PID namespace of its own counts until gem ends
//     (what it started may outlive it); only this process's programs are known (one a gem
//     -p beside the editor started is not). Where programs get no PID namespace at all
//     (user namespaces off, as AppArmor makes them for users on Ubuntu 24.04;
//     GEM_SANDBOX_NAMESPACES=off: host/sandbox MayOutlive), the editor is
//     never asked: a program an earlier or a concurrent gem started may have left its
//     session (setsid) and still write the workspace, unseen here, and the shell tool alone
//     makes that possible in every project; the model reads what is saved, as in
//     Gemini CLI without an editor. fs/write_text_file is not used: gem writes
//     through its own checks (protected paths, atomic replace), which a client's write
//     would bypass; editors reload a changed file. terminal/* is not used (as Gemini CLI
//     does not): commands run in gem's sandbox.
package acp
