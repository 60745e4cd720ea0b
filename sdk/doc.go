// Package sdk is gem's agent as a Go library: the agent gem -p runs — Gemini models, the
// tools of installed extensions and gem's core tools under gem's sandbox and policy, hooks,
// context files, skills, subagents, saved sessions — composed by host/agent.Open, with the
// program's own instructions and typed tools added.
//
//	a, err := sdk.NewAgent(sdk.Options{
//		Instructions: []sdk.Instruction{sdk.Static("You review Go code.")},
//		Tools:        []sdk.Tool{countLines},
//	})
//	s, err := a.Session(ctx)
//	res, err := s.Send(ctx, "How long is main.go?")
//	fmt.Println(res.Text)
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
//   - An error a tool returns reaches the model as the call's failure; wrap it in ModelError
//     to say so explicitly. An error that must end the turn is returned by the hook or the
//     approval callback instead.
//   - Without Options.Approve, a call the policy would ask about is refused (the model is
//     told), as gem -p does without a terminal.
//   - Static instructions stand where GEMINI.md content stands (after gem's base prompt and
//     the context files); dynamic ones are evaluated before every request.
//
// Sessions are saved where gem saves them ($GEM_HOME/sessions): gem --resume <id> and
// Agent.ResumeSession continue them.
package sdk
