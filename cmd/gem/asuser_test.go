package main

import (
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// attackScripts are the scripts that try attacks; they run as root (TestScripts) and again
// as a normal user (TestAttackScriptsAsNormalUser), since the sandbox differs for the two
// (network namespaces, RLIMIT_NPROC, /proc; file permissions for the core tools and settings).
const attackScripts = "trust|hostile|sandbox_boundary|core_tools|settings|hooks_settings"

// TestAttackScriptsAsNormalUser re-runs the attack scripts as an unprivileged user when the
// tests run as root: it creates the user gemtest if needed and runs this test binary as
// that user, so testscript, gem, git and every extension run without root.
func TestAttackScriptsAsNormalUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: TestScripts already runs the attack scripts as a normal user")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	u, err := user.Lookup("gemtest")
	if err != nil {
		if out, err := exec.Command("useradd", "--create-home", "--shell", "/bin/sh", "gemtest").CombinedOutput(); err != nil {
			t.Fatalf("creating the user gemtest: %v\n%s", err, out)
		}
		if u, err = user.Lookup("gemtest"); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// A copy of this test binary the user can run (go test's build folder is root's only).
	dir, err := os.MkdirTemp(u.HomeDir, "gem-test-") // one per run: runs may overlap
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "gem.test")
	copyExecutable(t, self, bin)
	// The scripts and the sample extensions, where the user can read them (the checkout may
	// sit in a folder closed to other users, such as /root): linked when the filesystem
	// allows, else copied.
	tree := filepath.Join(dir, "repo")
	for _, sub := range []string{"cmd/gem/testdata", "sample-extensions"} {
		os.MkdirAll(filepath.Dir(filepath.Join(tree, sub)), 0o755)
		src := filepath.Join(repoRoot(), sub)
		if exec.Command("cp", "-al", src, filepath.Join(tree, sub)).Run() != nil {
			if out, err := exec.Command("cp", "-a", src, filepath.Join(tree, sub)).CombinedOutput(); err != nil {
				t.Fatalf("copying %s for user gemtest: %v\n%s", sub, err, out)
			}
		}
	}
	exec.Command("chmod", "-R", "a+rX", tree).Run()
	os.Chown(dir, uid, gid)
	cmd := exec.Command(bin, "-test.run", "^TestScripts$/^("+attackScripts+")$", "-test.v", "-test.timeout", "5m")
	cmd.Dir = filepath.Join(tree, "cmd", "gem")
	cmd.Env = []string{"HOME=" + u.HomeDir, "USER=gemtest", "LOGNAME=gemtest", "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8",
		"XDG_CACHE_HOME=" + filepath.Join(u.HomeDir, ".cache"), "GEM_TEST_REPO=" + tree}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the attack scripts as user gemtest: %v\n%s", err, out)
	}
	t.Logf("as user gemtest:\n%s", out)
	for _, name := range strings.Split(attackScripts, "|") {
		if !strings.Contains(string(out), "--- PASS: TestScripts/"+name+" ") {
			t.Errorf("script %s did not pass as user gemtest (skipped?):\n%s", name, out)
		}
	}
}

func copyExecutable(t *testing.T, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
