package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gemhost/gem/cmd/gem/cli"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/iostreams"
	"github.com/gemhost/gem/internal/oauthserver"
	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/manifest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"gem": func() { os.Exit(Main(processIO(), os.Args)) },
		// The front under another name (sandbox_helper.txtar: installed as gemx).
		"gemx": func() { os.Exit(Main(processIO(), os.Args)) },
		// The scripted browser gem mcp auth opens ($BROWSER).
		"fake-browser": func() {
			os.Exit(oauthserver.BrowserMain(os.Args[1:], os.Getenv("GEM_TEST_BROWSER_LOG"), os.Getenv("GEM_TEST_BROWSER_MODE") == "tamper-state", os.Stdout, os.Stderr))
		},
		"gem-engine": func() {
			os.Exit(cli.Main(iostreams.FromFiles(os.Stdin, os.Stdout, os.Stderr, os.Getenv), os.Args))
		},
	})
}

// TestScripts runs the CLI end to end: testdata/script/*.txtar, each in its own $WORK with
// HOME=$WORK/home (GEM_HOME unset, so ~/.gem is $WORK/home/.gem) and the cwd $WORK.
func TestScripts(t *testing.T) {
	// $WORK lives outside /tmp: the sandbox lets extensions write /tmp , so
	// a HOME under /tmp could not show that they cannot write the user's files. Nor inside
	// this repository, whose .git would make it every script's workspace.
	root := testhome.Dir(t, "run-")
	testscript.Run(t, testscript.Params{
		Dir:         "testdata/script",
		WorkdirRoot: root,
		Setup: func(e *testscript.Env) error {
			// The home lives outside $WORK (the cwd, and so the workspace): a workspace that
			// holds the home is refused (it would make ~/.bashrc writable to every program).
			// $WORK/home links to it, so scripts still write home/... files.
			home := filepath.Join(root, "homes", filepath.Base(e.WorkDir), "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			link := filepath.Join(e.WorkDir, "home")
			if _, err := os.Lstat(link); err == nil { // files the script put under home/
				if err := os.Remove(home); err != nil {
					return err
				}
				if err := os.Rename(link, home); err != nil {
					return err
				}
			}
			if err := os.Symlink(home, link); err != nil {
				return err
			}
			e.Setenv("HOME", home)
			e.Setenv("TMPDIR", os.TempDir()) // short paths for go-plugin's Unix sockets
			e.Setenv("GEM_HOME", "")
			e.Setenv("GEMINI_CLI_HOME", "")
			e.Setenv("GEM_REPO", repoRoot())
			// This machine's platform in Node's names, as sample binaries are laid out.
			e.Setenv("NODE_OS", manifest.NodeOS(runtime.GOOS))
			e.Setenv("NODE_ARCH", manifest.NodeArch(runtime.GOARCH))
			// Scripts that build Go share the real build and module caches (a fresh HOME
			// would rebuild the standard library and download modules every time).
			for k, v := range goCaches() {
				e.Setenv(k, v)
			}
			e.Setenv("GEM_ENGINE", "")
			e.Setenv("GEM_GITHUB_API_URL", "http://127.0.0.1:1") // never the real GitHub
			e.Setenv("GITHUB_TOKEN", "")
			e.Setenv("GEMINI_API_KEY", "") // never the real Gemini API
			e.Setenv("GOOGLE_API_KEY", "")
			e.Setenv("GEM_GEMINI_BASE_URL", "http://127.0.0.1:1/")
			e.Setenv("GIT_AUTHOR_NAME", "gem test")
			e.Setenv("GIT_AUTHOR_EMAIL", "test@gem.invalid")
			e.Setenv("GIT_COMMITTER_NAME", "gem test")
			e.Setenv("GIT_COMMITTER_EMAIL", "test@gem.invalid")
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("GEMINI_CLI_BIN", geminiCLI())
			e.Setenv("ACPX_BIN", acpxBin())
			return nil
		},
		RequireExplicitExec: true,
		Condition: func(cond string) (bool, error) {
			// [samples]: make samples has built the sample extensions for this machine.
			// [root]: gem runs as root (network namespaces, and no RLIMIT_NPROC).
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			// [ns]: programs get namespaces of their own here (user, mount, PID, network).
			// [file:PATH]: PATH exists on this machine.
			if path, ok := strings.CutPrefix(cond, "file:"); ok {
				_, err := os.Stat(path)
				return err == nil, nil
			}
			// [geminicli]: Gemini CLI from npm (make test installs it in .cache/npm), to compare
			// formats with; required when GEM_REQUIRE_GEMINI_CLI is set (make test sets it).
			if cond == "geminicli" {
				if geminiCLI() == "" && os.Getenv("GEM_REQUIRE_GEMINI_CLI") != "" {
					return false, fmt.Errorf("Gemini CLI is not installed in %s: make test-deps installs it", filepath.Join(repoRoot(), ".cache", "npm"))
				}
				return geminiCLI() != "", nil
			}
			// [acpx]: acpx from npm, the ACP client gem acp is tested with; required likewise.
			if cond == "acpx" {
				if acpxBin() == "" && os.Getenv("GEM_REQUIRE_GEMINI_CLI") != "" {
					return false, fmt.Errorf("acpx is not installed in %s: make test-deps installs it", filepath.Join(repoRoot(), ".cache", "npm"))
				}
				return acpxBin() != "", nil
			}
			// [ociregistry]: Debian's docker-registry, the real registry OCI tests push to;
			// required likewise (make tools installs it).
			if cond == "ociregistry" {
				_, err := exec.LookPath("docker-registry")
				if err != nil && os.Getenv("GEM_REQUIRE_GEMINI_CLI") != "" {
					return false, fmt.Errorf("docker-registry is not installed: make tools installs it")
				}
				return err == nil, nil
			}
			if cond == "ns" {
				ok, _ := sandbox.Namespaces()
				return ok, nil
			}
			// [guard]: the seccomp supervisor runs here (the workspace guard, and the judge of
			// unix-socket connects without namespaces).
			if cond == "guard" {
				return sandbox.Capabilities().Guard, nil
			}
			if cond == "samples" {
				for _, bin := range []string{"gallery/bin/%s/%s/gallery", "shell-tools/bin/%s/%s/shell-tools", "notes-mcp/bin/%s/%s/notes-mcp", "hostile/bin/%s/%s/hostile"} {
					rel := fmt.Sprintf(bin, manifest.NodeOS(runtime.GOOS), manifest.NodeArch(runtime.GOARCH))
					if _, err := os.Stat(filepath.Join(repoRoot(), "sample-extensions", rel)); err != nil {
						return false, nil
					}
				}
				return true, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: scriptCmds,
	})
}

// geminiCLI is Gemini CLI's command as make test-deps installs it, or "".
func geminiCLI() string { return npmBin("gemini") }

// acpxBin is acpx's command (a headless ACP client) as make test-deps installs it, or "".
func acpxBin() string { return npmBin("acpx") }

// npmBin is the command name of an npm package make test-deps installs in .cache/npm, or "".
func npmBin(name string) string {
	bin := filepath.Join(repoRoot(), ".cache", "npm", "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		return ""
	}
	return bin
}

// repoRoot is the repository's top folder (this test runs in cmd/gem).
func repoRoot() string {
	if r := os.Getenv("GEM_TEST_REPO"); r != "" {
		return r // a copy of the scripts and samples another user can read (asuser_test.go)
	}
	abs, _ := filepath.Abs("../..")
	return abs
}

var goCachesOnce = sync.OnceValue(func() map[string]string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPROXY").Output()
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		return nil
	}
	return map[string]string{"GOCACHE": lines[0], "GOMODCACHE": lines[1], "GOPROXY": strings.TrimSuffix(lines[2], ",direct")}
})

func goCaches() map[string]string { return goCachesOnce() }
