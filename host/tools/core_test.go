package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestCoreTools: each core tool through the catalog, confined to the workspace: paths, ..
// and links that lead out are refused (reads and writes), links inside are followed.
func TestCoreTools(t *testing.T) {
	env := registrytest.Env(t, nil)
	ws := env.Cwd
	outside := filepath.Join(env.Home, "secret.txt")
	os.WriteFile(outside, []byte("the user's secret"), 0o600)
	os.MkdirAll(filepath.Join(ws, "src", "deep"), 0o755)
	os.WriteFile(filepath.Join(ws, "src", "main.go"), []byte("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "src", "deep", "util.go"), []byte("package main\n// TODO: more\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	syscall.Mkfifo(filepath.Join(ws, "pipe.txt"), 0o644) // planted by an archive or a program: must not block a read
	os.Symlink(outside, filepath.Join(ws, "escape"))
	os.Symlink(env.Home, filepath.Join(ws, "homedir"))
	os.Symlink("notes.txt", filepath.Join(ws, "inside"))
	os.Symlink(".gemini", filepath.Join(ws, "cfg"))
	os.WriteFile(filepath.Join(ws, "run.sh"), []byte("#!/bin/sh\necho old\n"), 0o755)

	r := load(t, env, Options{CoreWorkspace: ws})
	call := func(tool string, args any) *Result {
		t.Helper()
		data, _ := json.Marshal(args)
		res, err := r.Call(context.Background(), tool, data, CallOptions{})
		if err != nil {
			t.Fatalf("%s %s: %v", tool, data, err)
		}
		return res
	}
	abs := func(p string) string { return filepath.Join(ws, p) }
	tests := []struct {
		tool    string
		args    any
		want    string    // in the text
		errType ErrorType // "" for success
	}{
		{"read_file", map[string]any{"absolute_path": abs("notes.txt")}, "one\ntwo\nthree\n", ""},
		{"read_file", map[string]any{"absolute_path": abs("notes.txt"), "offset": 1, "limit": 1}, "[lines 2-2 of 3; read more with start_line and end_line]\ntwo\n", ""},
		{"read_file", map[string]any{"absolute_path": "inside"}, "one", ""},
		{"read_file", map[string]any{"absolute_path": outside}, "outside the workspace", ErrorPermissionDenied},
		{"read_file", map[string]any{"absolute_path": abs("escape")}, "outside the workspace", ErrorPermissionDenied},
		{"read_file", map[string]any{"absolute_path": "../secret.txt"}, "outside the workspace", ErrorPermissionDenied},
		{"read_file", map[string]any{"absolute_path": abs("nope.txt")}, "", ErrorNotFound},
		{"list_directory", map[string]any{"path": ws}, "[DIR] src\n", ""},
		{"list_directory", map[string]any{"path": abs("homedir")}, "outside the workspace", ErrorPermissionDenied},
		{"glob", map[string]any{"pattern": "**/*.go"}, abs("src/deep/util.go") + "\n" + abs("src/main.go") + "\n", ""},
		{"glob", map[string]any{"pattern": "*.go", "path": abs("src")}, abs("src/main.go"), ""},
		{"search_file_content", map[string]any{"pattern": "TODO|println", "include": "*.go"}, abs("src/deep/util.go") + ":2: // TODO: more", ""},
		{"search_file_content", map[string]any{"pattern": "("}, "not a regular expression", ErrorExecution},
		{"read_many_files", map[string]any{"paths": []string{"src/**/*.go", "notes.txt"}}, "--- " + abs("src/deep/util.go") + " ---\npackage main", ""},
		{"write_file", map[string]any{"file_path": abs("out/new.txt"), "content": "fresh"}, "wrote " + abs("out/new.txt"), ""},
		{"write_file", map[string]any{"file_path": abs("homedir/planted.txt"), "content": "x"}, "through the symbolic link " + abs("homedir"), ErrorPermissionDenied},
		{"write_file", map[string]any{"file_path": filepath.Join(env.Home, "planted.txt"), "content": "x"}, "outside the workspace", ErrorPermissionDenied},
		{"replace", map[string]any{"file_path": abs("notes.txt"), "old_string": "two", "new_string": "TWO"}, "replaced 1 occurrence in", ""},
		{"replace", map[string]any{"file_path": abs("notes.txt"), "old_string": "e", "new_string": "E"}, "occurs 3 times", ErrorExecution},
		{"replace", map[string]any{"file_path": abs("made.txt"), "old_string": "", "new_string": "created"}, "wrote", ""},
		{"replace", map[string]any{"file_path": abs("run.sh"), "old_string": "old", "new_string": "new"}, "replaced 1", ""},
		{"read_file", map[string]any{"file_path": abs("pipe.txt")}, "is not a regular file", ErrorExecution},
		{"replace", map[string]any{"file_path": abs("pipe.txt"), "old_string": "a", "new_string": "b"}, "is not a regular file", ErrorExecution},
		// what sandboxed programs may not change, core tools do not write either
		{"write_file", map[string]any{"file_path": abs(".gemini/settings.json"), "content": `{"tools":{"allowed":["run_shell_command"]}}`}, "is protected (.gemini configures", ErrorPermissionDenied},
		{"write_file", map[string]any{"file_path": abs(".gem/policies.toml"), "content": "x"}, "is protected (.gem configures", ErrorPermissionDenied},
		{"write_file", map[string]any{"file_path": abs(".git/hooks/pre-commit"), "content": "x"}, "is protected (.git ", ErrorPermissionDenied},
		{"replace", map[string]any{"file_path": abs("GEMINI.md"), "old_string": "", "new_string": "obey me"}, "is protected (GEMINI.md", ErrorPermissionDenied},
		{"write_file", map[string]any{"file_path": abs("cfg/settings.json"), "content": "x"}, "through the symbolic link " + abs("cfg"), ErrorPermissionDenied},
		{"write_file", map[string]any{"file_path": abs("inside"), "content": "x"}, "through the symbolic link", ErrorPermissionDenied},
		{"save_memory", map[string]any{"fact": "the user likes tea"}, "remembered in " + filepath.Join(env.Home, ".gemini", "GEMINI.md"), ""},
		{"save_memory", map[string]any{"fact": "and biscuits"}, "remembered", ""},
		{"write_todos", map[string]any{"todos": []map[string]string{{"description": "read", "status": "completed"}, {"description": "write", "status": "in_progress"}}}, "[x] read\n[>] write\n", ""},
		{"write_todos", map[string]any{"todos": []map[string]string{{"description": "x", "status": "someday"}}}, "use pending, in_progress", ErrorExecution},
	}
	for _, tt := range tests {
		res := call(tt.tool, tt.args)
		gotType := ErrorType("")
		if res.Error != nil {
			gotType = res.Error.Type
		}
		if gotType != tt.errType || !strings.Contains(res.Text, tt.want) {
			t.Errorf("%s %v: %q (error %q), want %q (error %q)", tt.tool, tt.args, res.Text, gotType, tt.want, tt.errType)
		}
	}
	if data, _ := os.ReadFile(abs("notes.txt")); string(data) != "one\nTWO\nthree\n" {
		t.Errorf("replace wrote %q", data)
	}
	if _, err := os.Stat(filepath.Join(env.Home, "planted.txt")); err == nil {
		t.Error("a write left the workspace")
	}
	// writes are atomic (a temporary file renamed into place) and keep the file's mode
	if st, err := os.Stat(abs("run.sh")); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("run.sh after replace: %v %v", st.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(ws, ".*.gem-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, p := range []string{".gemini", ".gem", ".git", "GEMINI.md"} {
		if _, err := os.Lstat(abs(p)); err == nil {
			t.Errorf("%s was created by a refused write", p)
		}
	}
	if data, _ := os.ReadFile(abs("made.txt")); string(data) != "created" {
		t.Errorf("replace with an empty old_string made %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(env.Home, ".gemini", "GEMINI.md")); string(data) != "## Gemini Added Memories\n- the user likes tea\n- and biscuits\n" {
		t.Errorf("save_memory wrote %q", data)
	}
	if tl, _ := r.Lookup("write_file"); tl == nil || tl.Kind() != KindEdit || tl.Extension != "gem" {
		t.Errorf("write_file: %+v", tl)
	}
}

// TestCoreWriteRace: a program that swaps a folder of the path for a link to .gemini between
// gem's check and its write (the race a sandboxed MCP server writing the workspace could
// run) makes the write fail; nothing lands in .gemini. The same write without the swap works.
func TestCoreWriteRace(t *testing.T) {
	env := registrytest.Env(t, nil)
	ws := env.Cwd
	os.MkdirAll(filepath.Join(ws, ".gemini"), 0o755)
	os.MkdirAll(filepath.Join(ws, "cfg"), 0o755)
	_, c, err := coreTools(ws, filepath.Join(env.Home, "GEMINI.md"), nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	c.beforeOpen = func(rel string) {
		if rel == "cfg" {
			os.Rename(filepath.Join(ws, "cfg"), filepath.Join(ws, "cfg.old"))
			os.Symlink(".gemini", filepath.Join(ws, "cfg"))
		}
	}
	if _, _, err := c.writeFile(writeFileArgs{FilePath: "cfg/settings.json", Content: `{"hooks":{}}`}); err == nil || !strings.Contains(err.Error(), "changed while gem was writing") {
		t.Errorf("the swapped write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".gemini", "settings.json")); err == nil {
		t.Error("the write landed in .gemini")
	}
	c.beforeOpen = nil
	os.Remove(filepath.Join(ws, "cfg"))
	if _, _, err := c.writeFile(writeFileArgs{FilePath: "new/deep/file.txt", Content: "ok"}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "new", "deep", "file.txt")); string(data) != "ok" {
		t.Errorf("the plain write: %q", data)
	}
}

// TestCoreToolsTakeGeminiShapes: the core tools take their parameters as Gemini CLI declares
// them today, its older names as aliases (the current one wins when both are given), and
// refuse what its ranges refuse, naming the parameter.
func TestCoreToolsTakeGeminiShapes(t *testing.T) {
	env := registrytest.Env(t, nil)
	ws := env.Cwd
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.WriteFile(filepath.Join(ws, "src", "Main.go"), []byte("package main\n// Todo: one\n// TODO: two\nfunc f() {}\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("a\nb\nc\nd\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "dup.txt"), []byte("x x x\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("build/\n"), 0o644)
	os.MkdirAll(filepath.Join(ws, "build"), 0o755)
	os.WriteFile(filepath.Join(ws, "build", "out.txt"), []byte("TODO built\n"), 0o644)
	r := load(t, env, Options{CoreWorkspace: ws})
	abs := func(p string) string { return filepath.Join(ws, p) }
	tests := []struct {
		tool    string
		args    string
		want    string // in the text, or in the error
		invalid bool   // refused before running (ArgumentsError)
	}{
		{"read_file", `{"file_path":"notes.txt","start_line":2,"end_line":3}`, "[lines 2-3 of 4; read more with start_line and end_line]\nb\nc\n", false},
		{"read_file", `{"file_path":"` + abs("notes.txt") + `","absolute_path":"nope"}`, "a\nb\n", false},
		{"read_file", `{"file_path":"notes.txt","start_line":0}`, `"start_line"`, true},
		{"read_file", `{"file_path":"notes.txt","offset":-1}`, `"offset"`, true},
		{"read_file", `{"file_path":"notes.txt","start_line":3,"end_line":2}`, "start_line 3 is after end_line 2", false},
		{"list_directory", `{"dir_path":"` + ws + `","file_filtering_options":{"respect_git_ignore":true}}`, "(1 ignored by .gitignore or .geminiignore)", false},
		{"list_directory", `{"dir_path":"` + ws + `","file_filtering_options":{"respect_git_ignore":false}}`, "[DIR] build\n", false},
		{"glob", `{"pattern":"**/main.go","dir_path":"` + ws + `"}`, abs("src/Main.go"), false},
		{"glob", `{"pattern":"**/main.go","case_sensitive":true}`, "no files match", false},
		{"grep_search", `{"pattern":"todo","dir_path":"src","include_pattern":"*.go"}`, abs("src/Main.go") + ":2: // Todo: one\n" + abs("src/Main.go") + ":3: // TODO: two\n", false},
		{"grep_search", `{"pattern":"TODO","case_sensitive":true,"names_only":true}`, abs("src/Main.go") + "\n", false},
		{"grep_search", `{"pattern":"TODO","no_ignore":true,"case_sensitive":true}`, abs("build/out.txt") + ":1: TODO built", false},
		{"grep_search", `{"pattern":"func","before":1}`, abs("src/Main.go") + "-3- // TODO: two\n" + abs("src/Main.go") + ":4: func f() {}", false},
		{"grep_search", `{"pattern":"todo","exclude_pattern":"one","total_max_matches":1}`, ":3: // TODO: two", false},
		{"grep_search", `{"pattern":"x","context":-1}`, `"context"`, true},
		{"search_file_content", `{"pattern":"f\\(\\)","fixed_strings":false,"path":"src"}`, ":4: func f() {}", false},
		{"read_many_files", `{"include":["**/*.txt"],"exclude":["dup.txt"]}`, "--- " + abs("notes.txt") + " ---", false},
		{"replace", `{"file_path":"dup.txt","instruction":"capitalise every x","old_string":"x","new_string":"X","allow_multiple":true}`, "replaced 3 occurrences", false},
		{"replace", `{"file_path":"dup.txt","old_string":"X","new_string":"y"}`, "occurs 3 times in " + abs("dup.txt") + ", expected 1", false},
		{"write_file", `{"file_path":"made/new.txt","content":"fresh"}`, "wrote " + abs("made/new.txt"), false},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res, err := r.Call(context.Background(), tt.tool, json.RawMessage(tt.args), CallOptions{})
			var ae *ArgumentsError
			switch {
			case tt.invalid:
				if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s %s: %v, want arguments refused naming %s", tt.tool, tt.args, err, tt.want)
				}
			case err != nil:
				t.Errorf("%s %s: %v", tt.tool, tt.args, err)
			case !strings.Contains(res.Text, tt.want):
				t.Errorf("%s %s:\n%s\nwant %q", tt.tool, tt.args, res.Text, tt.want)
			}
		})
	}
	if data, _ := os.ReadFile(abs("dup.txt")); string(data) != "X X X\n" {
		t.Errorf("dup.txt: %q", data)
	}
}

// TestCoreEditsCarryTheirDiff: write_file and replace answer with the change as structured
// output: the unified diff and its line counts.
func TestCoreEditsCarryTheirDiff(t *testing.T) {
	env := registrytest.Env(t, nil)
	os.WriteFile(filepath.Join(env.Cwd, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	r := load(t, env, Options{CoreWorkspace: env.Cwd})
	cases := []struct {
		tool, args     string
		added, removed int
		diff           string
	}{
		{"replace", `{"file_path":"a.txt","old_string":"two\n","new_string":"2\nzwei\n"}`, 2, 1, "-two\n+2\n+zwei\n"},
		{"write_file", `{"file_path":"b.txt","content":"new\nfile\n"}`, 2, 0, "+new\n+file\n"},
		{"write_file", `{"file_path":"a.txt","content":"one\n"}`, 0, 3, "-2\n-zwei\n-three\n"},
	}
	for _, c := range cases {
		res, err := r.Call(context.Background(), c.tool, json.RawMessage(c.args), CallOptions{})
		if err != nil || res.Error != nil {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
		var st editStat
		if err := json.Unmarshal(res.Structured, &st); err != nil {
			t.Fatalf("%s: structured %s: %v", c.tool, res.Structured, err)
		}
		if st.LinesAdded != c.added || st.LinesRemoved != c.removed || !strings.Contains(st.Diff, c.diff) || !strings.HasPrefix(st.Diff, "--- "+filepath.Join(env.Cwd, "")) {
			t.Errorf("%s %s: +%d -%d\n%s", c.tool, c.args, st.LinesAdded, st.LinesRemoved, st.Diff)
		}
	}
}

// TestEditQuestionsShowTheDiff: the question about an edit shows the change it would make,
// computed on the file as it is; a replace that would fail shows the call instead.
func TestEditQuestionsShowTheDiff(t *testing.T) {
	env := registrytest.Env(t, nil)
	os.WriteFile(filepath.Join(env.Cwd, "a.txt"), []byte("one\ntwo\n"), 0o644)
	r := load(t, env, Options{CoreWorkspace: env.Cwd})
	for _, c := range []struct {
		tool, args string
		want       []string
	}{
		{"replace", `{"file_path":"a.txt","old_string":"two","new_string":"TWO"}`, []string{"wants to change a file:", "-two", "+TWO", " one"}},
		{"write_file", `{"file_path":"b.txt","content":"new\n"}`, []string{"wants to change a file:", "+++ " + filepath.Join(env.Cwd, "b.txt"), "+new"}},
		{"replace", `{"file_path":"a.txt","old_string":"absent","new_string":"x"}`, []string{"wants to run:", `"old_string":"absent"`}},
	} {
		tl, _ := r.Lookup(c.tool)
		q := describeCall(tl, json.RawMessage(c.args))
		for _, w := range c.want {
			if !strings.Contains(q, w) {
				t.Errorf("%s %s: question lacks %q:\n%s", c.tool, c.args, w, q)
			}
		}
	}
}

// TestAskUser: the model's questions go to the user (Services.Answer) one by one; a choice is
// answered by number or in words; without anyone to ask, the model is told to decide.
func TestAskUser(t *testing.T) {
	env := registrytest.Env(t, nil)
	script := &prompt.Script{Answers: []string{"2", "1, 3", "my own idea", "yes"}}
	svc := &Services{Prompt: script}
	r := load(t, env, Options{CoreWorkspace: env.Cwd, Services: svc})
	args := `{"questions":[
		{"question":"Which auth?","header":"Auth","type":"choice","options":[{"label":"API key","description":"simple"},{"label":"OAuth","description":"SSO"}]},
		{"question":"Which tests?","header":"Tests","type":"choice","multiSelect":true,"options":[{"label":"unit","description":""},{"label":"e2e","description":""},{"label":"fuzz","description":""}]},
		{"question":"Name?","header":"Name","type":"text","placeholder":"a short name"},
		{"question":"Ship it?","header":"Ship","type":"yesno"}]}`
	res, err := r.Call(context.Background(), "ask_user", json.RawMessage(args), CallOptions{})
	if err != nil || res.Error != nil {
		t.Fatalf("%v %+v", err, res)
	}
	if want := "Auth: OAuth\nTests: unit, fuzz\nName: my own idea\nShip: yes\n"; res.Text != want {
		t.Errorf("answers %q, want %q", res.Text, want)
	}
	if asked := script.Asked; len(asked) != 4 || !strings.Contains(asked[0], "[Auth] Which auth?\n  1. API key — simple\n  2. OAuth — SSO") || !strings.Contains(asked[3], "(yes/no)") {
		t.Errorf("questions %q", asked)
	}
	r2 := load(t, registrytest.Env(t, nil), Options{CoreWorkspace: env.Cwd})
	res, err = r2.Call(context.Background(), "ask_user", json.RawMessage(`{"questions":[{"question":"?","header":"h","type":"text"}]}`), CallOptions{})
	if err != nil || res.Error == nil || !strings.Contains(res.Text, "there is no terminal to ask the user on") {
		t.Errorf("without a terminal: %v %+v", err, res)
	}
}

// TestCoreToolsReadBuffers: with Options.Buffers the core tools read an open file's unsaved
// text (and replace edits it), asking only about a regular file reached through no link;
// a link, a file outside, a missing file and a FIFO get gem's own answer, never the
// editor's.
func TestCoreToolsReadBuffers(t *testing.T) {
	// In a process of its own: the programs earlier tests started run without the sandbox's
	// helper, so without a PID namespace, and keep the editor unasked about the folders they
	// could write for the rest of their process's life (sandbox.WatchWrites).
	if os.Getenv("GEM_TEST_FRESH_PROCESS") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCoreToolsReadBuffers$", "-test.v")
		cmd.Env = append(os.Environ(), "GEM_TEST_FRESH_PROCESS=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: TestCoreToolsReadBuffers") {
			t.Fatalf("in a process of its own: %v\n%s", err, out)
		}
		return
	}
	env := registrytest.Env(t, nil)
	ws := env.Cwd
	secret := filepath.Join(env.Home, "secret.txt")
	os.WriteFile(secret, []byte("the user's secret"), 0o600)
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.WriteFile(filepath.Join(ws, "src", "main.go"), []byte("on disk\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "plain.txt"), []byte("plain on disk\n"), 0o644)
	os.Symlink("src/main.go", filepath.Join(ws, "alias.go"))
	os.Symlink("src", filepath.Join(ws, "srclink"))
	os.Symlink(secret, filepath.Join(ws, "escape"))
	syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644)
	var asked []string
	buffers := func(path string) (string, bool) {
		asked = append(asked, path)
		if path == filepath.Join(ws, "plain.txt") {
			return "", false // not open in the editor
		}
		return "unsaved in the editor\n", true
	}
	r := load(t, env, Options{CoreWorkspace: ws, Buffers: buffers})
	tests := []struct {
		name, tool, args string
		want             string // in the text
		asks             bool
	}{
		{"an open file", "read_file", `{"absolute_path":"src/main.go"}`, "unsaved in the editor", true},
		{"a file not open", "read_file", `{"absolute_path":"plain.txt"}`, "plain on disk", true},
		{"a link to a file inside", "read_file", `{"absolute_path":"alias.go"}`, "on disk", false},
		{"through a linked folder", "read_file", `{"absolute_path":"srclink/main.go"}`, "on disk", false},
		{"a link out", "read_file", `{"absolute_path":"escape"}`, "outside the workspace", false},
		{"a FIFO", "read_file", `{"absolute_path":"pipe"}`, "not a regular file", false},
		{"a missing file", "read_file", `{"absolute_path":"nope.txt"}`, "no such file", false},
		{"replace edits the buffer's text", "replace", `{"file_path":"src/main.go","old_string":"unsaved","new_string":"saved"}`, "", true},
	}
	for _, tt := range tests {
		asked = nil
		res, err := r.Call(context.Background(), tt.tool, json.RawMessage(tt.args), CallOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !strings.Contains(res.Text, tt.want) || (len(asked) > 0) != tt.asks {
			t.Errorf("%s: %q (asked %q)", tt.name, res.Text, asked)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "src", "main.go")); string(data) != "saved in the editor\n" {
		t.Errorf("replace wrote %q", data)
	}
}
