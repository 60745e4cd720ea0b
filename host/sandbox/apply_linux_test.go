package sandbox

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/testuser"
)

// TestPlanApplied: a plan run by the helper yields what it says, with and without the
// namespace layer: a write outside the write roots refused (Landlock, the read-only view),
// no network interface but loopback where the plan has a network namespace, the guard
// refusing a protected name where the plan has one, and the legitimate write going through.
func TestPlanApplied(t *testing.T) {
	if LandlockABI() < 1 || !guardArch {
		t.Skip("needs Landlock, amd64 or arm64")
	}
	ws, outside := outsideTmp(t), outsideTmp(t)
	pol := ForExtension(Access{Extension: outsideTmp(t), Workspace: ws, WriteWorkspace: true, Data: outsideTmp(t), Temp: outsideTmp(t)})
	script := `echo x 2>/dev/null > ` + outside + `/f && echo outside-written; ` +
		`echo x > ` + ws + `/ok.txt && echo workspace-written; ` +
		`true 2>/dev/null > ` + ws + `/.envrc && echo envrc-written; ` +
		`echo interfaces $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\n' ' ')`
	for _, namespaces := range []bool{true, false} {
		t.Run(map[bool]string{true: "namespaces", false: "without namespaces"}[namespaces], func(t *testing.T) {
			f := ProbeFacts()
			if namespaces && !f.Namespaces {
				t.Skip("no namespaces here: " + f.NamespacesWhy)
			}
			f.Namespaces = f.Namespaces && namespaces
			s := Program{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: ws, Name: "test", Policy: &pol}
			plan := MakePlan(s.Intent(false), f)
			var out []byte
			if namespaces {
				cmd, err := Command(s)
				if err != nil {
					t.Fatal(err)
				}
				out, _ = cmd.CombinedOutput()
			} else {
				out = runPlanned(t, s.helperPolicy(plan), ws, "/bin/sh", "-c", script)
			}
			got := string(out)
			if strings.Contains(got, "outside-written") || !strings.Contains(got, "workspace-written") {
				t.Errorf("the write roots: %s", got)
			}
			if plan.Seccomp.Guard && f.Supervisor() && strings.Contains(got, "envrc-written") {
				t.Errorf("the plan has the guard, and .envrc was made: %s", got)
			}
			if plan.NetNS != NetNSNone && !strings.Contains(got, "interfaces lo\n") {
				t.Errorf("the plan has a network namespace (%s), and the program sees: %s", plan.NetNS, got)
			}
			if plan.NetNS == NetNSNone && strings.Contains(got, "interfaces lo\n") {
				t.Errorf("the plan has a network namespace (%s), and the program sees: %s", plan.NetNS, got)
			}
		})
	}
}

// TestPlanAppliedAsNormalUser runs TestPlanApplied again as an unprivileged user (when the
// tests run as root): a user namespace, no network namespace without namespaces.
func TestPlanAppliedAsNormalUser(t *testing.T) {
	testuser.RunTests(t, "TestPlanApplied", "TestStepFailureRefuses", "TestRebindIsNoGrant", "TestPolicyWithoutStepsRefused")
}

// runPlanned runs program through the helper directly (no namespaces made for it) with the
// policy p, in dir; it returns the combined output.
func runPlanned(t *testing.T, p Policy, dir, program string, args ...string) []byte {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	cmd := exec.Command(self, append([]string{HelperArg, string(data), program, program}, args...)...)
	cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin"}
	out, _ := cmd.CombinedOutput()
	return out
}

// TestStepFailureRefuses: the helper takes the plan's word and detects nothing itself. A
// plan with a view run by a helper outside namespaces fails at that step, named, and the
// program never runs; a plan for Landlock ABI 2 on a newer kernel gets ABI 2's rules (no
// truncate right: a read-only file is truncated), not what the helper could have found (it once probed the
// ABI, the uid and the namespaces itself).
func TestStepFailureRefuses(t *testing.T) {
	if LandlockABI() < 4 {
		t.Skip("needs Landlock ABI 4")
	}
	ws := outsideTmp(t)
	pol := ForExtension(Access{Extension: outsideTmp(t), Workspace: ws, Data: outsideTmp(t), Temp: outsideTmp(t)})
	s := Program{Policy: &pol, Name: "test"}
	f := ProbeFacts()
	f.Namespaces = true
	plan := MakePlan(s.Intent(false), f)
	out := string(runPlanned(t, s.helperPolicy(plan), ws, "/bin/echo", "ran"))
	if strings.Contains(out, "ran") || !strings.Contains(out, "sandbox: view: the helper is not in namespaces of its own") {
		t.Errorf("a plan that cannot be applied: %q", out)
	}
	code := filepath.Join(pol.Read[len(SystemRead)], "code.js") // in the extension's folder: read, not written
	os.WriteFile(code, []byte("x"), 0o644)
	f.Namespaces, f.Root, f.LandlockABI = false, false, 2
	plan = MakePlan(s.Intent(false), f)
	out = string(runPlanned(t, s.helperPolicy(plan), ws, "/usr/bin/python3", "-c", "import os, sys; os.truncate(sys.argv[1], 0)", code))
	if st, err := os.Stat(code); err != nil || st.Size() != 0 {
		t.Errorf("a plan of Landlock ABI 2 (no truncate right): the helper applied another (%v): %q", err, out)
	}
}

// TestStepErrors: a failed step is a *StepError naming it; under a strict plan it is
// ErrNotEnforced too.
func TestStepErrors(t *testing.T) {
	err := stepFailed(Step{Op: StepNetNS}, false, errors.New("EPERM"))
	if !IsStepError(err) || errors.Is(err, ErrNotEnforced) || !strings.Contains(err.Error(), "network namespace") {
		t.Errorf("best effort: %v", err)
	}
	if err := stepFailed(Step{Op: StepLandlock}, true, errors.New("EINVAL")); !IsStepError(err) || !errors.Is(err, ErrNotEnforced) {
		t.Errorf("strict: %v", err)
	}
}

// TestApplierDecidesNothing: the files that apply a plan call no probe of the machine (its
// facts are the plan's, made once in gem): no ProbeFacts, no uid, no Landlock ABI or
// namespace or seccomp probe, no switch read from the environment.
func TestApplierDecidesNothing(t *testing.T) {
	// file: all its declarations, or only the functions named
	appliers := map[string][]string{"apply_linux.go": nil, "landlock_linux.go": nil, "namespace_linux.go": nil, "guard_filter_linux.go": nil,
		"cgroup_linux.go": nil, "steps.go": nil, "helper_unix.go": {"HelperMain", "runHelper", "execFailed"}, "prestart_linux.go": {"helperWait", "receiveProgram"}}
	probes := map[string]bool{"ProbeFacts": true, "machineFacts": true, "Geteuid": true, "LandlockABI": true, "Namespaces": true,
		"seccompUsable": true, "guardUsable": true, "seccompNotifyProbe": true, "Strict": true, "Disabled": true, "readSysctl": true, "Getenv": true}
	fset := token.NewFileSet()
	for name, only := range appliers {
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			if fn, ok := decl.(*ast.FuncDecl); only != nil && (!ok || !slices.Contains(only, fn.Name.Name)) {
				continue
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var callee string
				switch f := call.Fun.(type) {
				case *ast.Ident:
					callee = f.Name
				case *ast.SelectorExpr:
					callee = f.Sel.Name
				}
				if probes[callee] {
					t.Errorf("%s: %s calls %s: an applier decides nothing (the plan's facts are probed once, in facts_linux.go)", fset.Position(call.Pos()), filepath.Base(name), callee)
				}
				return true
			})
		}
	}
}

// TestRebindIsNoGrant: a folder the view binds writable below a read-only one (a rebind) is
// still ruled by Landlock: the program writes there only what its write roots give it.
func TestRebindIsNoGrant(t *testing.T) {
	if ok, _ := Namespaces(); !ok || LandlockABI() < 1 {
		t.Skip("needs namespaces and Landlock")
	}
	protected := outsideTmp(t)
	between, data := filepath.Join(protected, "between"), filepath.Join(protected, "between", "data")
	os.MkdirAll(data, 0o755)
	pol := ForExtension(Access{Extension: outsideTmp(t), Workspace: outsideTmp(t), Data: data, Temp: outsideTmp(t)})
	pol.Read = append(pol.Read, protected)
	pol.Protect, pol.Rebind = []string{protected}, []string{between}
	out, _ := run(t, &pol, "/", "echo x > "+data+"/ok && echo data-written; echo x 2>/dev/null > "+between+"/f && echo between-written")
	if !strings.Contains(out, "data-written") || strings.Contains(out, "between-written") {
		t.Errorf("a rebind: %s", out)
	}
}

// TestPolicyWithoutStepsRefused: a policy that carries no steps (a gem of another version
// than its helper: GEM_SANDBOX_HELPER, gem-engine handed the front) is refused by the
// helper, named, and the program never runs (it ran with no restriction at all); the same
// policy with its plan's steps runs.
func TestPolicyWithoutStepsRefused(t *testing.T) {
	ws := outsideTmp(t)
	pol := ForExtension(Access{Extension: outsideTmp(t), Workspace: ws, Data: outsideTmp(t), Temp: outsideTmp(t)})
	bare := pol
	bare.Steps = nil
	out := string(runPlanned(t, bare, ws, "/bin/sh", "-c", "echo program-ran"))
	if strings.Contains(out, "program-ran") || !strings.Contains(out, "no steps") {
		t.Errorf("a policy without steps: the helper said %q (want it refused, naming the missing steps)", out)
	}
	out = string(runPlanned(t, withoutNamespaces(pol), ws, "/bin/sh", "-c", "echo program-ran"))
	if !strings.Contains(out, "program-ran") {
		t.Errorf("the plan's steps: %q", out)
	}
}
