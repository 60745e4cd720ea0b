package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemhost/gem/internal/fakegemini"
	"github.com/gemhost/gem/sdk"
)

// example opens an agent against a scripted model in a fresh home (a program leaves Getenv
// nil and Settings at LoadSettings: the process's environment and gem -p's settings).
func example(o sdk.Options, replies ...fakegemini.Reply) (*sdk.Agent, func(), error) {
	_, getenv, stop, err := startFake(replies...)
	if err != nil {
		return nil, nil, err
	}
	o.Getenv, o.Cwd = getenv, filepath.Join(getenv("HOME"), "proj")
	if o.Settings == sdk.LoadSettings {
		o.Settings = sdk.NoSettings
	}
	a, err := sdk.NewAgent(context.Background(), o)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return a, func() { a.Close(); stop() }, nil
}

// The package doc's example, run against a scripted model in a fresh home: an
// instruction, a typed tool that reads the workspace through the session's FS, one turn.
func Example() {
	_, getenv, stop, err := startFake(chunks(call("count_lines", `{"path":"main.go"}`)), chunks(text("main.go has 3 lines.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	proj := filepath.Join(getenv("HOME"), "proj")
	os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	type lineArgs struct {
		Path string `json:"path" jsonschema:"the file, relative to the workspace"`
	}
	countLines := sdk.NewTool("count_lines", "Counts the lines of a file of the workspace",
		func(sc sdk.SessionContext, in lineArgs) (int, error) {
			data, err := sc.FS().ReadFile(sc, in.Path) // sc is the call's context
			if err != nil {
				return 0, sdk.ModelErrorf("reading %s: %v", in.Path, err)
			}
			return strings.Count(string(data), "\n"), nil
		})

	ctx := context.Background()
	a, err := sdk.NewAgent(ctx, sdk.Options{
		Instructions: []sdk.Instruction{sdk.Static("You review Go code.")},
		Tools:        []sdk.Tool{countLines},
		// a program leaves these out: the process's environment, its folder, gem -p's settings
		Getenv: getenv, Cwd: proj, Settings: sdk.NoSettings,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	s, err := a.Session(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.Send(ctx, "How long is main.go?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.ToolCalls[0].Output)
	fmt.Println(res.Text)
	// Output:
	// 3
	// main.go has 3 lines.
}

// The design's simple example: a session, its turn streamed — the events of gem -p's
// stream-json, each of which marshals to its line (json.NewEncoder(os.Stdout).Encode(ev)).
func Example_simple() {
	a, done, err := example(sdk.Options{}, chunks(text("It is a "), text("Go extension manager.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx := context.Background()
	s, _ := a.Session(ctx) // or a.ResumeSession(ctx, "some-session-id")
	for ev, err := range s.SendStream(ctx, "what does this project do?") {
		if err != nil {
			fmt.Println(err)
			return
		}
		switch ev.Type {
		case sdk.EventMessage:
			fmt.Printf("%s %s: %q\n", ev.Type, ev.Role, ev.Text)
		case sdk.EventResult:
			fmt.Println(ev.Type, ev.Result.Usage.Requests, "request")
		default:
			fmt.Println(ev.Type)
		}
	}
	// Output:
	// init
	// message user: "what does this project do?"
	// message assistant: "It is a "
	// message assistant: "Go extension manager."
	// result 1 request
}

// System instructions: static text, and text made for each request from the session.
func ExampleDynamic() {
	a, done, err := example(sdk.Options{Instructions: []sdk.Instruction{
		sdk.Static("This is a static string instruction."),
		sdk.Dynamic(func(sc sdk.SessionContext) string {
			return fmt.Sprintf("The current time is %s in session %s.", sc.Timestamp().Format(time.RFC3339), sc.SessionID())
		}),
	}}, chunks(text("Noted.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	s, _ := a.Session(context.Background())
	res, _ := s.Send(context.Background(), "hi")
	fmt.Println(res.Text)
	// Output: Noted.
}

// Custom tools: typed arguments and results; the model gets the tool's declaration and,
// after the call, its response.
func ExampleNewTool() {
	type addArgs struct {
		A float64 `json:"a" jsonschema:"first number to add"`
		B float64 `json:"b" jsonschema:"second number to add"`
	}
	type sum struct {
		Result float64 `json:"result"`
	}
	add := sdk.NewTool("add", "add two numbers", func(_ sdk.SessionContext, in addArgs) (sum, error) {
		return sum{Result: in.A + in.B}, nil
	})
	a, done, err := example(sdk.Options{Tools: []sdk.Tool{add}},
		chunks(call("add", `{"a":23,"b":79}`)), chunks(text("23 + 79 = 102")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	s, _ := a.Session(context.Background())
	res, _ := s.Send(context.Background(), "what is 23 + 79?")
	fmt.Println(res.ToolCalls[0].Output)
	fmt.Println(res.Text)
	// Output:
	// {"result":102}
	// 23 + 79 = 102
}

// Custom hooks: after write_file writes a .go file, reformat it through sc.FS() (which
// obeys gem's confinement and policy) and tell the model to read it again.
func ExampleOnAfterTool() {
	reformat := sdk.OnAfterTool("reformat", "write_file", func(sc sdk.SessionContext, in sdk.AfterToolInput) (sdk.AfterToolOutput, error) {
		path, _ := in.ToolInput["file_path"].(string)
		if !strings.HasSuffix(path, ".go") {
			return sdk.AfterToolOutput{}, nil // a zero output changes nothing
		}
		src, err := sc.FS().ReadFile(sc, path) // sc is the hook's context: the turn's
		if err != nil {
			return sdk.AfterToolOutput{}, err
		}
		if err := sc.FS().WriteFile(sc, path, []byte(strings.ReplaceAll(string(src), "    ", "\t"))); err != nil {
			return sdk.AfterToolOutput{}, err
		}
		return sdk.AfterToolOutput{AdditionalContext: "Reformatted " + path + ", read it again before changing it."}, nil
	})
	a, done, err := example(sdk.Options{Hooks: []sdk.Hook{reformat}, ApprovalMode: "auto_edit"},
		chunks(call("write_file", `{"file_path":"main.go","content":"package main\n\nfunc main() {\n    println()\n}\n"}`)),
		chunks(text("Written.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	s, _ := a.Session(context.Background())
	res, _ := s.Send(context.Background(), "write main.go")
	data, _ := os.ReadFile(filepath.Join(s.Context().Cwd(), "main.go"))
	fmt.Println(res.Text, strings.Contains(string(data), "\tprintln()"))
	// Output: Written. true
}

// The same hook as a command hook: a program whose main calls RunAsCommand, named in a
// hooks.json or settings.json ("command": "/path/to/program"), reads the event on stdin and
// answers as command hooks do.
func ExampleHook_RunAsCommand() {
	guard := sdk.OnBeforeTool("guard", "run_shell_command", func(_ sdk.SessionContext, in sdk.BeforeToolInput) (sdk.BeforeToolOutput, error) {
		if cmd, _ := in.ToolInput["command"].(string); strings.Contains(cmd, "git push") {
			return sdk.BeforeToolOutput{HookOutput: sdk.HookOutput{Decision: sdk.HookDeny, Reason: "pushing is for humans"}}, nil
		}
		return sdk.BeforeToolOutput{}, nil
	})
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		guard.RunAsCommand() // never returns
	}
	fmt.Println(guard.Event(), guard.Name())
	// Output: BeforeTool guard
}

// Custom skills: one skill's folder, or a folder of skills.
func ExampleSkillDir() {
	dir, _ := os.MkdirTemp("", "skills-")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "pirate"), 0o755)
	os.WriteFile(filepath.Join(dir, "pirate", "SKILL.md"), []byte("---\nname: pirate\ndescription: Talk like a pirate\n---\nSay arr.\n"), 0o644)
	a, done, err := example(sdk.Options{
		Instructions: []sdk.Instruction{sdk.Static("You are a helpful assistant.")},
		Skills:       []sdk.Skill{sdk.SkillDir(dir)}, // a root: each subfolder with a SKILL.md
	}, chunks(call("activate_skill", `{"name":"pirate"}`)), chunks(text("Arr, hello.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	s, _ := a.Session(context.Background())
	res, _ := s.Send(context.Background(), "greet me")
	fmt.Println(res.ToolCalls[0].Name, "->", res.Text)
	// Output: activate_skill -> Arr, hello.
}

// Subagents: a subagent with its own instructions (or a whole Agent) the model gives tasks
// to.
func ExampleNewSubagent() {
	researcher := sdk.NewSubagent(sdk.SubagentSpec{
		Name:         "researcher",
		Description:  "when a question needs digging through the project",
		Instructions: sdk.Static("You dig through the project and report what you find."),
		// the design's instructions(prompt, ctx): made for each call from its task
		TaskInstructions: func(task string, sc sdk.SessionContext) string {
			return "Answer in one line, for a session started " + sc.Timestamp().Format("Jan 2") + "."
		},
	})
	a, done, err := example(sdk.Options{Subagents: []sdk.Subagent{researcher}},
		chunks(call("researcher", `{"query":"what does main.go do?"}`)),
		chunks(text("It prints hello.")), // the subagent's answer
		chunks(text("main.go prints hello.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	s, _ := a.Session(context.Background())
	res, _ := s.Send(context.Background(), "what does main.go do?")
	fmt.Println(res.ToolCalls[0].Output, "|", res.Text)
	// Output: It prints hello. | main.go prints hello.
}

// Extensions bundle instructions, tools, skills, hooks and subagents; LoadExtension loads a
// Gemini CLI extension folder, or an installed one by name.
func ExampleNewExtension() {
	shout := sdk.NewTool("shout", "Shouts its text", func(_ sdk.SessionContext, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return strings.ToUpper(in.Text), nil
	})
	loud := sdk.NewExtension(sdk.ExtensionSpec{
		Name:         "loud",
		Description:  "Makes things loud",
		Instructions: []sdk.Instruction{sdk.Static("These are concatenated with the agent's instructions.")},
		Tools:        []sdk.Tool{shout},
	})
	a, done, err := example(sdk.Options{Extensions: []sdk.Extension{loud}},
		chunks(call("shout", `{"text":"hello"}`)), chunks(text("HELLO it is.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	s, _ := a.Session(context.Background())
	res, _ := s.Send(context.Background(), "shout hello")
	fmt.Println(res.ToolCalls[0].Output)
	// Output: HELLO
}

// Approvals without a callback: the turn ends with the call pending; Approve (here, or in
// another process after ResumeSession) decides it and the turn goes on.
func ExampleSession_Approve() {
	a, done, err := example(sdk.Options{},
		chunks(call("write_file", `{"file_path":"notes.txt","content":"hi\n"}`)), chunks(text("Saved.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx := context.Background()
	s, _ := a.Session(ctx)
	res, _ := s.Send(ctx, "save a note")
	p := res.Pending[0]
	fmt.Println("pending:", p.Tool, string(p.Args))
	res, _ = s.Approve(ctx, map[string]sdk.Decision{p.CallID: sdk.ApproveOnce})
	fmt.Println(res.ToolCalls[0].Output != "", res.Text)
	// Output:
	// pending: write_file {"content":"hi\n","file_path":"notes.txt"}
	// true Saved.
}

// A tool asks the user (SessionContext.Ask, Confirm) and waits on its SessionContext, the
// call's context; the program answers through Options.Ask — here a script, as a test
// would; a terminal, or an ACP client's elicitation (gem acp) in a real program. The model's
// own questions (ask_user) go to the same Options.Ask.
func ExampleSessionContext_Ask() {
	type deployArgs struct{}
	deploy := sdk.NewTool("deploy", "Deploys the service where the user says",
		func(sc sdk.SessionContext, _ deployArgs) (string, error) {
			region, err := sc.Ask(sdk.Question{Header: "Region", Text: "Which region?",
				Options: []sdk.Option{{Label: "us"}, {Label: "eu"}}})
			if err != nil {
				return "", err
			}
			ok, err := sc.Confirm("Deploy to "+region.Text+"?", "the new version goes live")
			if err != nil || !ok {
				return "not deployed", err
			}
			select { // a real deployment would pass sc to what it waits on
			case <-sc.Done():
				return "", sc.Err() // the turn was cancelled
			default:
				return "deployed to " + region.Text, nil
			}
		})
	answers := map[string]sdk.Answer{"Which region?": {Text: "eu"}, "Deploy to eu?": {Yes: true}}
	a, done, err := example(sdk.Options{Tools: []sdk.Tool{deploy},
		Ask: func(ctx context.Context, q sdk.Question) (sdk.Answer, error) {
			fmt.Println("asked:", q.Text)
			return answers[q.Text], nil
		}},
		chunks(call("deploy", `{}`)), chunks(text("Deployed to eu.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	s, _ := a.Session(context.Background())
	res, _ := s.Send(context.Background(), "deploy")
	fmt.Println(res.ToolCalls[0].Output)
	fmt.Println(res.Text)
	// Output:
	// asked: Which region?
	// asked: Deploy to eu?
	// deployed to eu
	// Deployed to eu.
}

// A question as a form, for a program whose Options.Ask answers by a client's elicitation
// (MCP's or ACP's): Message above, one field ("answer") of Schema, FormAnswer reading the
// reply.
func ExampleQuestion_Schema() {
	q := sdk.Question{Header: "Go", Text: "Go on?", Type: sdk.AskYesNo}
	schema, _ := json.Marshal(q.Schema())
	fmt.Println(q.Message())
	fmt.Println(string(schema))
	fmt.Println(q.FormAnswer("accept", map[string]any{"answer": true}).Yes)
	// Output:
	// Go on?
	// {"properties":{"answer":{"title":"Go","type":"boolean"}},"required":["answer"],"type":"object"}
	// true
}

// The slash commands a user may type, listed without opening an agent (no model key
// needed): gem's built-in commands, which Session.RunCommand runs (and RunCommand, those
// that need no session), and the prompt commands of the settings (none for a bare agent).
func ExampleCommands() {
	cmds, err := sdk.Commands(sdk.Options{Settings: sdk.NoSettings})
	if err != nil {
		fmt.Println(err)
		return
	}
	var names []string
	for _, c := range cmds {
		names = append(names, "/"+c.Name)
	}
	fmt.Println(strings.Join(names, " "))
	// Output:
	// /chat /model /tools /mcp /memory /stats /compress /agents /clear /skills /skill /restore /help /extensions /commands /history
}

// The built-in commands that need no session (NeedsSession false: /help, /history,
// /extensions, /commands) run without an agent: no model, no API key — as gem shell runs
// them before its first prompt. Host.History is what the program's user typed.
func ExampleRunCommand() {
	_, getenv, stop, err := startFake()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	home := getenv("HOME")
	os.MkdirAll(filepath.Join(home, ".gemini", "extensions", "notes"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "extensions", "notes", "gemini-extension.json"), []byte(`{"name": "notes", "version": "1.2.0"}`), 0o644)
	noKey := func(k string) string {
		if k == "GEMINI_API_KEY" {
			return ""
		}
		return getenv(k)
	}
	typed := func() []string { return []string{"/extensions", "/history"} }
	o := sdk.Options{Cwd: filepath.Join(home, "proj"), Getenv: noKey, Host: &sdk.Host{History: typed}}
	ctx := context.Background()
	out, _ := sdk.RunCommand(ctx, o, "extensions", nil)
	fmt.Println(strings.Fields(strings.Split(out, "\n")[1])[:3])
	out, _ = sdk.RunCommand(ctx, o, "history", nil)
	fmt.Print(out)
	_, err = sdk.RunCommand(ctx, o, "stats", nil)
	_, needs := errors.AsType[*sdk.NeedsSessionError](err)
	fmt.Println(needs, err)
	// Output:
	// [notes 1.2.0 enabled]
	//    1  /extensions
	//    2  /history
	// true /stats works on a session: open one first
}

// A built-in command runs on the session as gem shell and gem acp run it: /clear starts a
// new conversation (the last one stays saved), which ListSessions finds without an agent.
func ExampleSession_RunCommand() {
	_, getenv, stop, err := startFake(chunks(text("Hi.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	o := sdk.Options{Cwd: filepath.Join(getenv("HOME"), "proj"), Getenv: getenv, Settings: sdk.NoSettings}
	ctx := context.Background()
	a, _ := sdk.NewAgent(ctx, o)
	defer a.Close()
	s, _ := a.Session(ctx)
	defer s.Close()
	s.Send(ctx, "hello")
	first := s.ID()
	out, _ := s.RunCommand(ctx, "clear", nil)
	fmt.Println(strings.HasPrefix(out, "New conversation"), s.ID() != first)
	saved, _ := sdk.ListSessions(o)
	fmt.Println(len(saved), saved[0].Title, saved[0].Messages)
	// Output:
	// true true
	// 1 hello 2
}

// A command-line program that runs the agent on its own terminal gives it a Host: here it
// hears gem's warnings outside a turn and what hooks say; in plan mode the answer is kept
// as the plan file.
func ExampleHost() {
	a, done, err := example(sdk.Options{ApprovalMode: "plan", Host: &sdk.Host{
		Warn: func(err error) { fmt.Fprintln(os.Stderr, "warning:", err) },
		Say:  func(msg string) { fmt.Fprintln(os.Stderr, msg) },
	}}, chunks(text("Step 1: add a cache.")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx := context.Background()
	s, _ := a.Session(ctx)
	res, _ := s.Send(ctx, "add a cache")
	fmt.Println(res.Text, filepath.Ext(res.PlanFile))
	// Output:
	// Step 1: add a cache. .md
}

// A terminal program answers Options.Ask as gem shell does: it shows the question's lines
// and reads what the person types; a number picks that option.
func ExampleQuestion_Terminal() {
	q := sdk.Question{Header: "Auth", Text: "Which auth method?", Options: []sdk.Option{{Label: "OAuth", Description: "a browser sign-in"}, {Label: "API key"}}}
	fmt.Println(q.Terminal())
	a := q.TypedAnswer("2") // what the person typed
	fmt.Println(a.Text, a.Choices)
	// Output:
	// [Auth] Which auth method?
	//   1. OAuth — a browser sign-in
	//   2. API key
	// Answer with a number, or in your own words:
	// API key [API key]
}
