package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
)

// TestInstallAndDist: make install puts both binaries side by side under PREFIX and the
// installed gem finds its engine; scripts/dist.sh makes an archive (this platform's only,
// to keep the test short) whose SHA256SUMS checks, and whose gem runs from where it is
// unpacked.
func TestInstallAndDist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds release binaries")
	}
	dir := testhome.Dir(t, "dist-")
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o755)
	// make and go keep the user's HOME (their build cache); gem gets the test's
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = repoRoot()
		cmd.Env = os.Environ()
		if name != "make" {
			cmd.Env = append(cmd.Env, "HOME="+home, "GEM_HOME="+filepath.Join(home, ".gem"))
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	prefix := filepath.Join(dir, "prefix")
	run("make", "-s", "install", "PREFIX="+prefix)
	for _, b := range []string{"gem", "gem-engine"} {
		if fi, err := os.Stat(filepath.Join(prefix, "bin", b)); err != nil || fi.Mode()&0o111 == 0 {
			t.Fatalf("make install: %s: %v", b, err)
		}
	}
	// the engine is found beside the front: a verb the front hands over works
	if out := run(filepath.Join(prefix, "bin", "gem"), "doctor", "--json"); !strings.Contains(out, `"gemEngine": "`+filepath.Join(prefix, "bin", "gem-engine")) {
		t.Errorf("installed gem did not run the installed engine:\n%s", out)
	}

	out := filepath.Join(dir, "dist")
	cmd := exec.Command("scripts/dist.sh", out)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH, "VERSION=9.9.9-test")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dist.sh: %v\n%s", err, b)
	}
	sums := exec.Command("sha256sum", "-c", "SHA256SUMS")
	sums.Dir = out
	if b, err := sums.CombinedOutput(); err != nil {
		t.Fatalf("SHA256SUMS: %v\n%s", err, b)
	}
	name := "gem_9.9.9-test_" + runtime.GOOS + "_" + runtime.GOARCH
	untar := exec.Command("tar", "-xzf", name+".tar.gz")
	untar.Dir = out
	if b, err := untar.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, b)
	}
	for _, doc := range []string{"README.md", "docs/README.md", "docs/cli/gem.md"} { // the README's links lead somewhere
		if _, err := os.Stat(filepath.Join(out, name, doc)); err != nil {
			t.Errorf("the archive has no %s: %v", doc, err)
		}
	}
	if v := run(filepath.Join(out, name, "gem"), "--version"); strings.TrimSpace(v) != "gem version 9.9.9-test" {
		t.Errorf("the archive's gem says %q", v)
	}
	if v := run(filepath.Join(out, name, "gem"), "help"); !strings.Contains(v, "manage and run") {
		t.Errorf("the archive's gem did not reach its engine: %q", v)
	}
}
