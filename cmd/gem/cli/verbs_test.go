package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/iostreams"
	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry"
	"github.com/urfave/cli/v2"
)

// testHome makes a home outside /tmp (the sandbox opens /tmp; see the testing
// notes in docs/development.md), removed after the test.
func testHome(t *testing.T) string { return testhome.Dir(t, "cli-") }

// verbRun is one invocation of the app with test streams.
type verbRun struct {
	args    string // after "gem"; split on spaces
	stdin   string
	code    int
	stdout  string // a regular expression stdout must match ("" = anything)
	stderr  string // likewise for stderr
	noMatch string // a regular expression stdout must not match
}

// runVerb runs gem with args in env on test streams and returns the exit code and output.
func runVerb(t *testing.T, env registry.Env, r verbRun) (int, string, string) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(r.stdin)
	f := &Factory{IO: ios, Env: func() (registry.Env, error) { return env, nil }, Environ: func() []string { return []string{"PATH=/usr/bin:/bin"} }}
	app := NewApp(f)
	args := append([]string{"gem"}, strings.Fields(r.args)...)
	code := printError(ios.ErrOut, app.Run(interspersed(app, helpPath(args))))
	return code, out.String(), errOut.String()
}

func checkRun(t *testing.T, env registry.Env, r verbRun) {
	t.Helper()
	code, out, errOut := runVerb(t, env, r)
	if code != r.code {
		t.Errorf("gem %s: exit %d, want %d\nstdout: %s\nstderr: %s", r.args, code, r.code, out, errOut)
	}
	if r.stdout != "" && !regexp.MustCompile(r.stdout).MatchString(out) {
		t.Errorf("gem %s: stdout does not match %q:\n%s\nstderr: %s", r.args, r.stdout, out, errOut)
	}
	if r.stderr != "" && !regexp.MustCompile(r.stderr).MatchString(errOut) {
		t.Errorf("gem %s: stderr does not match %q:\n%s", r.args, r.stderr, errOut)
	}
	if r.noMatch != "" && regexp.MustCompile(r.noMatch).MatchString(out) {
		t.Errorf("gem %s: stdout matches %q:\n%s", r.args, r.noMatch, out)
	}
}

// TestVerbs runs every verb in one home, in order: each row is a unit test of a verb's run
// function through its flags and arguments, on test streams (no terminal).
func TestVerbs(t *testing.T) {
	home := testHome(t)
	project := filepath.Join(home, "project")
	src := filepath.Join(home, "src", "demo")
	for _, d := range []string{project, src} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	manifest := `{"name": "demo", "version": "1.0.0", "description": "a demo",
	  "settings": [{"name": "Units", "envVar": "DEMO_UNITS", "description": "units to use"}]}`
	if err := os.WriteFile(filepath.Join(src, "gemini-extension.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	env := registry.NewEnv(home, project, func(string) string { return "" })
	newDir := filepath.Join(home, "made")
	for _, r := range []verbRun{
		{args: "ext list", stdout: `(?s)^$|No extensions`},
		{args: "ext list extra", code: 2, stderr: `gem ext list takes no arguments \(got "extra"\)`},
		{args: "ext validate " + src, stdout: `valid extension "demo" 1.0.0`},
		{args: "ext validate " + src + " --json", stdout: `"valid": true`},
		{args: "ext install " + src, code: 1, stderr: `cannot ask for consent: no terminal to ask on \(add --consent to agree\)`},
		{args: "ext install " + src + " --consent --json", stdout: `"status": "installed"`, stderr: `Consent given with --consent`},
		{args: "ext install " + src + " --consent", code: 1, stderr: `already installed at .* \(run gem ext update demo, or install again with --force`},
		{args: "ext list", stdout: `demo +1.0.0 +enabled`},
		{args: "ext info demo", stdout: `Name: +demo\n`},
		{args: "ext info demo --json", stdout: `"consent": "consented"`},
		{args: "ext info nosuch", code: 1, stderr: `no extension named "nosuch" here \(gem ext list --all shows what gem finds\)`},
		{args: "ext config demo", stdout: `Units +DEMO_UNITS +\(not set\) +units to use`},
		{args: "ext config demo Units", stdin: "metric\n", stdout: `Units \(DEMO_UNITS\) set for "demo"`},
		{args: "ext config demo Units --value imperial", stdout: `set for "demo"`},
		{args: "ext config demo --json", stdout: `"value": "imperial"`},
		{args: "ext config demo Units --unset", stdout: `unset for "demo"`},
		{args: "ext grant demo --network --write ~/cache", stdout: `demo may also:\n  network\n  write ` + regexp.QuoteMeta(home) + `/cache\n`},
		{args: "ext grant demo --read relative", code: 2, stderr: `give an absolute folder`},
		{args: "ext grant demo --revoke --json", stdout: `^\{\}\n$`},
		{args: "ext grant demo", stdout: `demo: nothing granted beyond its manifest`},
		{args: "ext disable demo", stdout: `Extension "demo" disabled`},
		{args: "ext list", stdout: `demo +1.0.0 +disabled`},
		{args: "ext enable demo --scope nowhere", code: 2, stderr: `--scope "nowhere": use user or workspace`},
		{args: "ext enable demo", stdout: `Extension "demo" enabled`},
		{args: "ext verify demo", stdout: `matches its install record`},
		{args: "ext verify demo --json", stdout: `"ok": true`},
		{args: "ext update demo --dry-run", stdout: `demo: up to date`},
		{args: "ext update", code: 2, stderr: `update needs extension names, --all or --auto`},
		{args: "ext consent demo --consent", stdout: `Agreed to extension "demo"`},
		{args: "ext consent nosuch", code: 1, stderr: `no extension named or found in "nosuch"`},
		{args: "ext new " + newDir + " context", stdout: `created .*gemini-extension.json`},
		{args: "ext new " + newDir, code: 1, stderr: `is not empty`},
		{args: "ext link " + newDir + " --consent", stdout: `linked to`},
		{args: "ext uninstall", code: 2, stderr: `uninstall needs extension names`},
		{args: "ext uninstall demo", stdout: `Extension "demo" uninstalled`},
		{args: "ext uninstall demo", code: 1, stderr: `no installed extension named or installed from "demo" \(gem ext list shows them\)`},
		{args: "trust", stdout: `is trusted \(TRUST_FOLDER`},
		{args: "trust --list", stdout: `TRUST_FOLDER\t` + regexp.QuoteMeta(project)},
		{args: "trust --revoke --json", stdout: `"trusted": false`},
		{args: "trust a b", code: 2, stderr: `at most one folder`},
		{args: "commands", stdout: `No commands`},
		{args: "commands --json", stdout: `^\[\]\n$`},
		{args: "run nosuch", code: 1, stderr: `nosuch`},
		{args: "run", code: 2, stderr: `a command name is needed`},
		{args: "tools list --json", stdout: `^\[\]\n$`},
		{args: "tools schema nosuch", code: 1, stderr: `no tool "nosuch" \(gem tools list shows`},
		{args: "tools call nosuch {}", code: 1, stderr: `no tool "nosuch"`},
		{args: "tools call", code: 2, stderr: `tools call needs a tool name`},
		{args: "tools call --batch", stdin: `{"tool":"nosuch"}` + "\n", code: 1, stdout: `"type":"call_failed","message":"no tool \\"nosuch\\""`},
		{args: "tools call --batch x", code: 2, stderr: `takes no arguments`},
		{args: "mcp list", stdout: `No MCP servers: `},
		{args: "mcp tools nosuch", code: 1, stderr: `no mcp server "nosuch" among enabled extensions \(gem mcp list shows them\)`},
		{args: "mcp resources nosuch", code: 1, stderr: `no mcp server "nosuch"`},
		{args: "mcp read nosuch x://y", code: 1, stderr: `no mcp server "nosuch"`},
		{args: "mcp serve --http 0.0.0.0:1", code: 2, stderr: `only loopback addresses`},
		{args: "doctor --json", stdout: `"sandbox"`},
		{args: "doctor", stdout: `(?m)^Machine$(?s).*^Sandbox \(gem sandbox explain`},
		{args: "sessions --json", stdout: `^\[\]\n$`},
		{args: "settings", stdout: `(?s)Files \(later ones win\).*user .*/\.gemini/settings\.json \(not found\).*none set: gem.s defaults apply`},
		{args: "settings --json", stdout: `"files": \[`},
		{args: "settings extra", code: 2, stderr: `gem settings takes no arguments`},
		{args: "completion bash", stdout: `complete -o bashdefault`},
		{args: "completion tcsh", code: 2, stderr: `unknown shell "tcsh"`},
		{args: "-p hello", code: 1, stderr: `no Gemini API key`},
		{args: "-p hello --output-format yaml", code: 2, stderr: `--output-format "yaml"`},
		{args: "nosuch", code: 2, stderr: `unknown command "nosuch"`},
	} {
		checkRun(t, env, r)
	}
}

// TestConsentOnATerminal: with a terminal the consent question is asked on stderr and
// answered from stdin; "n" declines and leaves nothing installed.
func TestConsentOnATerminal(t *testing.T) {
	home := testHome(t)
	src := filepath.Join(home, "src")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "gemini-extension.json"), []byte(`{"name":"tty","version":"1.0.0"}`), 0o644)
	env := registry.NewEnv(home, home, func(string) string { return "" })
	for _, tt := range []struct {
		answer string
		code   int
		out    string
	}{{"n\n", 1, ""}, {"\n", 0, `Extension "tty" 1.0.0 installed`}} {
		ios, in, out, errOut := iostreams.Test()
		ios.SetTTY(true, false, true)
		in.WriteString(tt.answer)
		app := NewApp(&Factory{IO: ios, Env: func() (registry.Env, error) { return env, nil }, Environ: func() []string { return nil }})
		code := printError(ios.ErrOut, app.Run([]string{"gem", "ext", "install", src}))
		if code != tt.code || !strings.Contains(errOut.String(), "Do you want to continue? [Y/n]") || !regexp.MustCompile(tt.out).MatchString(out.String()) {
			t.Errorf("answer %q: exit %d\nstdout: %s\nstderr: %s", tt.answer, code, out, errOut)
		}
	}
}

// TestPrintError: each kind of error gets its exit code and one rendering.
func TestPrintError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		code int
		want string
	}{
		{nil, 0, ""},
		{usagef("bad %s", "flag"), 2, "gem: bad flag\nRun 'gem help' or add --help to the command for usage.\n"},
		{exitError{code: 1}, 1, ""},
		{exitError{code: 130}, 130, ""},
		{exitError{code: 1, msg: "2 of 3 failed"}, 1, "gem: 2 of 3 failed\n"},
		{&registry.NotFoundError{Name: "x"}, 1, "gem: no extension named \"x\" here (gem ext list --all shows what gem finds)\n"},
		{os.ErrNotExist, 1, "gem: file does not exist\n"},
	} {
		var b bytes.Buffer
		if code := printError(&b, tt.err); code != tt.code || b.String() != tt.want {
			t.Errorf("%v: exit %d, %q; want %d, %q", tt.err, code, b.String(), tt.code, tt.want)
		}
	}
}

// leafPaths lists every leaf command's path below cmds ("ext install", "run", …).
func leafPaths(prefix string, cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		if c.Name == "help" {
			continue
		}
		path := strings.TrimSpace(prefix + " " + c.Name)
		if len(c.Subcommands) == 0 {
			out = append(out, path)
		}
		out = append(out, leafPaths(path, c.Subcommands)...)
	}
	return out
}

// TestHelpOnEveryVerb: -h, --help and `gem help <path…>` show each verb's own help with its
// full path, EXAMPLES, and no default stated twice; exit 0.
func TestHelpOnEveryVerb(t *testing.T) {
	env := registry.NewEnv(testHome(t), "/", func(string) string { return "" })
	ios, _, _, _ := iostreams.Test()
	paths := leafPaths("", NewApp(&Factory{IO: ios}).Commands)
	if len(paths) < 29 {
		t.Fatalf("only %d verbs: %v", len(paths), paths)
	}
	for _, path := range paths {
		for _, args := range []string{path + " --help", path + " -h", "help " + path} {
			code, out, errOut := runVerb(t, env, verbRun{args: args})
			if code != 0 || !strings.Contains(out, "USAGE:\n   gem "+path) || !strings.Contains(out, "EXAMPLES") {
				t.Errorf("gem %s: exit %d\n%s%s", args, code, out, errOut)
			}
			if strings.Contains(out, "(default: false)") || regexp.MustCompile(`default \S+\).*\(default`).MatchString(out) {
				t.Errorf("gem %s: a default said twice or about a switch:\n%s", args, out)
			}
		}
	}
}

// TestJSONOnEveryVerb: every verb that reports a result has --json (the exceptions print
// what is already machine-readable or nothing of their own), and a failure with --json is
// a JSON error object on stdout.
func TestJSONOnEveryVerb(t *testing.T) {
	noJSON := map[string]string{
		"run":          "the command's own output",
		"shell":        "interactive",
		"completion":   "a shell script",
		"mcp serve":    "the MCP protocol itself",
		"acp":          "the ACP protocol itself",
		"mcp read":     "the resource's own text",
		"tools schema": "prints JSON already",
	}
	ios, _, _, _ := iostreams.Test()
	app := NewApp(&Factory{IO: ios})
	for _, path := range leafPaths("", app.Commands) {
		cmd := app.Command(strings.Fields(path)[0])
		for _, w := range strings.Fields(path)[1:] {
			cmd = cmd.Command(w)
		}
		has := false
		for _, f := range cmd.Flags {
			has = has || slices.Contains(f.Names(), "json")
		}
		if _, exempt := noJSON[path]; has == exempt {
			t.Errorf("gem %s: --json %v, exempt %v", path, has, exempt)
		}
	}
	env := registry.NewEnv(testHome(t), "/", func(string) string { return "" })
	for _, args := range []string{"ext info nosuch --json", "ext verify nosuch --json", "ext enable nosuch --json", "tools call nosuch --json", "ext uninstall nosuch --json"} {
		code, out, _ := runVerb(t, env, verbRun{args: args})
		var doc struct {
			Error struct {
				Message  string `json:"message"`
				ExitCode int    `json:"exitCode"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code == 0 || doc.Error.Message == "" || doc.Error.ExitCode != code {
			t.Errorf("gem %s: exit %d, stdout %q (%v)", args, code, out, err)
		}
	}
}
