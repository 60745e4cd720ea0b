package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/gemhost/gem"

// TestDependenciesPointDown: cmd → sdk → host → registry → manifest, and internal/ and
// pluginsdk below all of them. It reads `go list -deps` (what each package links, transitively) and fails on an
// arrow up, and on the light front (cmd/gem) linking what only the engine needs.
func TestDependenciesPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	// layer of a package of the module: the first path element after the module.
	layer := func(p string) string {
		rest, ok := strings.CutPrefix(p, module+"/")
		if !ok {
			return ""
		}
		first, _, _ := strings.Cut(rest, "/")
		return first
	}
	// may lists what each layer may link of the module's layers. pluginsdk (the plugin
	// authors' API, a module that stands alone) is at the bottom: anyone may link it, and it
	// links nothing of gem's.
	may := map[string][]string{
		"pluginsdk": {"pluginsdk"},
		"internal":  {"internal", "pluginsdk"},
		"manifest":  {"manifest", "internal", "pluginsdk"},
		"registry":  {"registry", "manifest", "internal", "pluginsdk"},
		"host":      {"host", "registry", "manifest", "internal", "pluginsdk"},
		"sdk":       {"sdk", "host", "registry", "manifest", "internal", "pluginsdk"},
	}
	// Test support for the tests of every layer: linked by tests only.
	testSupport := map[string]bool{module + "/internal/testhome": true, module + "/internal/sigtest": true, module + "/registry/registrytest": true, module + "/internal/otelcollect": true}
	// The light front stays light: nothing of the engine's libraries.
	heavy := []string{"github.com/urfave/cli", "google.golang.org/grpc", "google.golang.org/genai", "github.com/modelcontextprotocol/go-sdk", "github.com/sigstore", "oras.land", "net/http", "crypto/x509"}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		allowed, ok := may[layer(pkg)]
		for _, d := range deps {
			if l := layer(d); ok && l != "" && !contains(allowed, l) {
				t.Errorf("%s links %s: %s may not depend on %s (dependencies point down: cmd → sdk → host → registry → manifest, internal below all)", pkg, d, layer(pkg), l)
			}
			if testSupport[d] && !testSupport[pkg] {
				t.Errorf("%s links %s, which is for tests only", pkg, d)
			}
			if pkg == module+"/cmd/gem" {
				for _, h := range heavy {
					if d == h || strings.HasPrefix(d, h+"/") {
						t.Errorf("the light front cmd/gem links %s: keep it in the engine (cmd/gem/cli)", d)
					}
				}
			}
		}
		checked++
	}
	if checked < 40 {
		t.Fatalf("only %d packages listed: the check is broken", checked)
	}
}

// TestSDKLinksNoDistribution: a program built on the SDK runs an agent; it installs
// nothing, so it links none of what fetching, checking and carrying extensions needs — OCI
// (registry/oci, oras), signatures (registry/signature, sigstore), gem.lock's payloads
// (host/toolchain/payload: starting a server pins its command line with
// host/toolchain/launcher) and install sources (registry/install, the marketplace and MCP
// registry clients).
func TestSDKLinksNoDistribution(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/sdk").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !contains(deps, module+"/host/agent") {
		t.Fatalf("sdk does not link host/agent (%d packages): the check is broken", len(deps))
	}
	distribution := []string{module + "/registry/oci", module + "/registry/signature", module + "/registry/install",
		module + "/registry/mcpregistry", module + "/host/toolchain/payload", "oras.land", "github.com/sigstore"}
	for _, d := range deps {
		for _, x := range distribution {
			if d == x || strings.HasPrefix(d, x+"/") {
				t.Errorf("sdk links %s (%s): an agent installs nothing; find the import that brings it (go list -deps -f '{{.ImportPath}} {{.Imports}}' ./sdk) and move what the agent needs below it", d, x)
			}
		}
	}
}

// TestInternalHoldsLeaves: the packages under internal/ import nothing of gem's outside
// internal/, in their code or their tests (a helper that needs a layer lives in that layer,
// as registry/registrytest does).
func TestInternalHoldsLeaves(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, module+"/internal/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 10 {
		t.Fatalf("only %d internal packages listed: the check is broken", len(lines))
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module+"/") && !strings.HasPrefix(imp, module+"/internal/") {
				t.Errorf("%s imports %s: internal/ holds leaves only; move the helper into the layer it needs (or what it needs into internal/)", fields[0], imp)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestPathsHaveOneOwner: gem's own folders and the ones it shares with Gemini CLI are named
// in internal/paths only; code asks it for a location instead of joining ".gem" or
// ".gemini" by hand (the provider table's root specs are data, in registry/providers.go).
func TestPathsHaveOneOwner(t *testing.T) {
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	out, err := exec.Command("git", "-C", strings.TrimSpace(string(root)), "ls-files", "*.go").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	join := regexp.MustCompile(`filepath\.Join\([^)]*"\.gem(ini)?"`)
	for _, f := range strings.Fields(string(out)) {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "internal/paths/") || strings.HasPrefix(f, "sample-extensions/") || strings.HasPrefix(f, "examples/") || strings.HasPrefix(f, "internal/testhome/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), f))
		if os.IsNotExist(err) {
			continue // deleted, not yet committed
		} else if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if join.MatchString(line) {
				t.Errorf("%s:%d joins gem's or Gemini CLI's folder by hand (ask internal/paths): %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
