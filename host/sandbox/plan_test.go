package sandbox

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/plans from MakePlan's output")

// planProfiles are the machines the plans are tested on, as data: no kernel is asked.
var planProfiles = map[string]Facts{
	"root":      {OS: "linux", Arch: "amd64", Root: true, Namespaces: true, LandlockABI: 6, Seccomp: true, SeccompNotify: true, Yama: "1", YamaTraceChild: true, Helper: "/usr/bin/gem", Homes: []string{"/root"}},
	"user":      {OS: "linux", Arch: "amd64", Namespaces: true, LandlockABI: 6, Seccomp: true, SeccompNotify: true, Yama: "1", YamaTraceChild: true, Helper: "/usr/bin/gem", Homes: []string{"/home/u"}, ResolvDir: "/run/systemd/resolve"},
	"nouserns":  {OS: "linux", Arch: "amd64", NamespacesWhy: "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)", LandlockABI: 6, Seccomp: true, SeccompNotify: true, Yama: "1", YamaTraceChild: true, Helper: "/usr/bin/gem", Homes: []string{"/home/u"}},
	"landlock1": {OS: "linux", Arch: "amd64", Namespaces: true, LandlockABI: 1, Seccomp: true, SeccompNotify: true, Yama: "1", YamaTraceChild: true, Helper: "/usr/bin/gem", Homes: []string{"/home/u"}},
	"nonotify":  {OS: "linux", Arch: "amd64", NamespacesWhy: "user.max_user_namespaces is 0", LandlockABI: 6, Seccomp: true, Yama: "1", YamaTraceChild: true, Helper: "/usr/bin/gem", Homes: []string{"/home/u"}},
	"arm64":     {OS: "linux", Arch: "arm64", Namespaces: true, LandlockABI: 4, Seccomp: true, SeccompNotify: true, Yama: "2", Helper: "/usr/bin/gem", Homes: []string{"/home/u"}},
	"rootnons":  {OS: "linux", Arch: "amd64", Root: true, NamespacesWhy: "GEM_SANDBOX_NAMESPACES=off", LandlockABI: 3, Seccomp: true, SeccompNotify: true, Yama: "1", YamaTraceChild: true, Helper: "/usr/bin/gem", Homes: []string{"/root"}},
}

// planIntents are the programs planned on each profile: an extension's program by
// default, with the network, with the workspace capability, strict, with a toolchain and
// a launcher cache, and gem run's.
func planIntents(home string) map[string]Intent {
	base := func(a Access) Intent {
		a.Extension, a.Workspace = home+"/.gemini/extensions/tidy", "/work/proj"
		a.Data, a.Temp = home+"/.gem/data/tidy", "/tmp/gem-1000/tidy"
		in := IntentOf(ForExtension(a))
		in.Extension, in.Program, in.Env = "tidy", "mcp server fmt", []string{"PATH", "HOME", "LANG", "TMPDIR", "GEM_EXTENSION_DATA"}
		return in
	}
	workspace := base(Access{WriteWorkspace: true})
	workspace.Frozen = []string{"/work/proj/.gem/extensions/local"}
	strict := base(Access{})
	strict.Strict = true
	toolchain := base(Access{Network: true, Read: []string{home + "/.nvm/versions/node/v22", home + "/.npmrc"}})
	toolchain.Toolchains = []string{home + "/.nvm/versions/node/v22"}
	toolchain.Overlays = []Overlay{{Lower: home + "/.npm", Upper: home + "/.gem/overlays/tidy/caches/mcp-fmt/npm/upper"}}
	run := base(Access{})
	run.Program, run.Foreground = "/fmt", true
	return map[string]Intent{"default": base(Access{}), "network": base(Access{Network: true}), "workspace": workspace,
		"strict": strict, "toolchain": toolchain, "run": run}
}

// TestPlanGolden: each profile × intent's plan, as text a reviewer reads
// (testdata/plans/<profile>/<case>.txt; go test -run TestPlanGolden -update rewrites them).
func TestPlanGolden(t *testing.T) {
	eachPlan(t, func(t *testing.T, profile, name string, plan Plan) {
		var buf bytes.Buffer
		plan.WriteText(&buf)
		if _, err := json.Marshal(plan); err != nil {
			t.Fatalf("the plan is not plain data: %v", err)
		}
		golden(t, filepath.Join("testdata", "plans", profile, name+".txt"), buf.String())
	})
}

// TestStepsGolden: the helper's steps for each golden plan, in the order it applies them
// (testdata/steps/<profile>/<case>.txt): a pure function of the plan, which the applier
// executes one by one.
func TestStepsGolden(t *testing.T) {
	eachPlan(t, func(t *testing.T, profile, name string, plan Plan) {
		var buf bytes.Buffer
		WriteSteps(&buf, Steps(plan))
		golden(t, filepath.Join("testdata", "steps", profile, name+".txt"), buf.String())
	})
}

// eachPlan runs check on the plan of every profile × intent.
func eachPlan(t *testing.T, check func(t *testing.T, profile, name string, plan Plan)) {
	for profile, facts := range planProfiles {
		home := "/home/u"
		if facts.Root {
			home = "/root"
		}
		for name, in := range planIntents(home) {
			t.Run(profile+"/"+name, func(t *testing.T) { check(t, profile, name, MakePlan(in, facts)) })
		}
	}
}

// golden compares got with file (-update rewrites it).
func golden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -run 'TestPlanGolden|TestStepsGolden' -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -run 'TestPlanGolden|TestStepsGolden' -update, then review the diff):\n%s", file, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines of want and got that differ, by number.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			out.WriteString("-" + a + "\n+" + b + "\n")
		}
	}
	return out.String()
}

// TestPackageDocFitsOnAScreen: the package doc (env.go) says intent, plan, appliers and what
// each mechanism enforces in one screen (issue 47).
func TestPackageDocFitsOnAScreen(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "env.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	doc := file.Doc.Text()
	if n := strings.Count(doc, "\n"); n > 50 {
		t.Errorf("the package doc has %d lines, more than a screen (50)", n)
	}
	for _, want := range []string{"Intent", "MakePlan", "Steps", "What each mechanism enforces", "guard", "Landlock"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the package doc does not say %q", want)
		}
	}
}
