// Package sdk is gem's agent as a Go library: the agent gem -p runs — Gemini models, the
// tools of installed extensions and gem's core tools under gem's sandbox and policy, hooks,
// context files, skills, subagents, saved sessions — composed by host/agent.Open, with the
// program's own instructions and typed tools added.
//
//	ctx := context.Background()
//	a, err := sdk.NewAgent(ctx, sdk.Options{
//		Instructions: []sdk.Instruction{sdk.Static("You review Go code.")},
//		Tools:        []sdk.Tool{countLines},
//	})
//	s, err := a.Session(ctx)
//	res, err := s.Send(ctx, "How long is main.go?")
//	fmt.Println(res.Text)
//
// (Example, in example_test.go, is this code compiled and run, with countLines and the
// error checks; TestPackageDocExampleIsCompiled keeps the two the same. docs/sdk.md says
// how to use the SDK from another module.)
//
// The parts: Static and Dynamic instructions; NewTool (typed, served in-process, as a
// go-plugin with Tool.Plugin, over MCP with MCPServer); OnSessionStart … OnPreCompress
// hooks (Hook.RunAsCommand makes a program a command hook); SkillDir; NewSubagent;
// NewExtension and LoadExtension bundling them; SessionContext (the call's context.Context)
// with FS, Shell, Ask and Confirm; approvals by Options.Approve or pending (Session.Approve);
// questions to the user by Options.Ask.
//
// Choices where the design leaves it open:
//   - Settings: by default the agent loads what gem -p loads (the user's and the workspace's
//     settings, the installed extensions, their tools, hooks, context files, skills and
//     subagents, the policy files); Options.Settings = sdk.NoSettings makes a bare agent with
//     only the program's instructions and tools and gem's core tools.
//   - A program's tool runs in the program's process, as gem's core tools run in gem's: it
//     goes through the same path as every tool (its arguments validated against the schema
//     of its Go type, the policy's decision, BeforeTool and AfterTool hooks, the audit log).
//     Its kind is "other" unless it says (Tool.Kind): the policy asks before an edit, delete,
//     move or execute tool in default mode.
//   - Without Options.Approve, a call the policy would ask about ends the turn with the call
//     pending (Result.Pending, saved with the session); Session.Approve decides it, in this
//     process or another after ResumeSession. A subagent's call waits the same way
//     (PendingApproval.Subagent names it; its CallID is the subagent call's, "/", its own):
//     once decided, the subagent goes on where it stopped, then the turn. SessionContext's
//     FS and Shell cannot wait:
//     without Approve, what the policy would ask about is refused.
//   - A tool's, a hook's and a dynamic instruction's SessionContext is a context.Context:
//     the turn's (cancelled with it — the program's ctx ending, breaking out of SendStream,
//     an ACP client's session/cancel — with its deadline), carrying pluginsdk's host, so
//     pluginsdk.Confirm, Logger, Log, Progress and Output work in the program's process as in
//     a plugin: Confirm asks through Options.Ask, logs and progress go to slog.Default
//     tagged with the session; Output is an EventToolOutput of SendStream (gem acp: a
//     tool_call_update of the running call), never sent to the model.
//     Served as a plugin or over MCP, the same tool reaches that host. Session.Context's
//     is never cancelled. FS and Shell take it (or any context) as their first argument.
//   - Questions: SessionContext.Ask (choice, text, yes/no, as the model's ask_user) and
//     Confirm go to Options.Ask, one at a time, and so does ask_user; without Options.Ask,
//     Ask is ErrNoAsk and ask_user fails for the model to decide (as gem -p without a
//     terminal). A plugin's host answers yes/no only (the plugin protocol has Confirm);
//     MCPServer asks its client by elicitation (input requests, SEP-2322). Options.Ask
//     fills Text, Choices or Yes; the SDK completes the others (Answer).
//   - An error a tool returns ends the turn unless it is a ModelError (or a pluginsdk
//     ToolError): the model sees those and the turn goes on.
//   - Hooks (OnBeforeTool, …) get and answer what command hooks get and answer, decoded
//     into Go types; they run after the extensions' and settings' hooks, in the agent's
//     goroutine, and hooksConfig does not turn them off (they are the program's). The
//     program's hooks may rewrite any tool's input; an extension's (NewExtension) only its
//     own tools', as an installed extension's.
//   - Subagents (NewSubagent) start with their task only and gem's base prompt plus their
//     instructions; their tools see the parent's session id and their own transcript.
//   - The program is the sandbox's re-exec helper for what the agent starts (this package's
//     init): no gem binary is needed beside it.
//   - Static instructions stand where GEMINI.md content stands (after gem's base prompt and
//     the context files); dynamic ones are evaluated before every request.
//   - Decisions: ApproveOnce, ApproveAlways (the rest of the agent's life) and
//     ApproveAndSave (also saved as a rule in the user's policy file, the terminal's "save
//     always"). The approval mode is the agent's; a session is saved with it
//     (Session.SavedApprovalMode), and restoring it on resume is the program's choice.
//   - Prompts are text plus images (Session.Attach: inline to the model, kept in the
//     history); Session.Expand and Session.Commands know every slash command gem knows:
//     prompt commands, MCP servers' prompts, skills ("/<skill> request" activates one).
//     gem's built-in commands (/compress, /stats, /help…) are one table, gem shell's and
//     gem acp's: Session.RunCommand runs them; those that need no session (Command's
//     NeedsSession false: /help, /history, /extensions, /commands) RunCommand runs without
//     an agent, so a program offers them before it has a model key.
//   - Options.Model is the model and its backend: Gemini (any genai client configuration:
//     the Gemini API with a key, Vertex AI with a project and location, a base URL),
//     GeminiClient (a *genai.Client of the program's), or the program's own Model (two
//     methods: a test scripts the model's answers with no server). gem's own encoder of the
//     Gemini API's wire format serves the requests it covers; genai the others.
//   - SendStream's events are Gemini CLI's stream-json: an Event marshals to the line
//     gemini -o stream-json writes for it (keys in its order), and the stream ends with the
//     result event, which carries the turn's error. Thoughts, which Gemini CLI's stream-json
//     leaves out, are events of gem's own type "thought".
//   - In plan mode (ApprovalMode plan) the model is told it plans and changes nothing, and a
//     turn's answer is kept as the plan file (Result.PlanFile), as gem -p keeps it.
//   - gem -p and gem shell are programs of this package: they render SendStream's events
//     (text, Gemini CLI's -o json and -o stream-json) and run RunCommand's commands, with an
//     Options.Host for their terminal; gem acp serves sessions to an editor (package acp).
//   - Options.Buffers lets an editor supply the text of the files the core tools read
//     (unsaved changes), only for regular files of the workspace reached through no link.
//
// Sessions are saved where gem saves them ($GEM_HOME/sessions): gem --resume <id> and
// Agent.ResumeSession continue them.
package sdk
