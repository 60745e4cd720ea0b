package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/testuser"
)

// attackScripts are the scripts that try attacks; they run as root (TestScripts) and again
// as a normal user (TestAttackScriptsAsNormalUser), since the sandbox differs for the two
// (network namespaces, RLIMIT_NPROC, /proc; file permissions for the core tools and settings;
// unreadable: folders root could read anyway; python_toolchains: the overlay in a user
// namespace).
const attackScripts = "trust|trust_links|lock_sources|lock_fetch|hostile|sandbox_boundary|sandbox_nonamespaces|core_tools|settings|hooks_settings|unreadable|uninstall_names|python_toolchains|staging_links|formats_claude|formats_antigravity|marketplace|mcp_registry|mcp_registry_secrets|acp_editor_race|lock|lock_payloads|install_sources|signatures|bundle|bundle_payloads|grant_home|sandbox_helper|toolchains|sandbox_paths|sandbox_env|sandbox_daemons|path_planted|toolchain_around|mcp_start_limit|terminal_sanitiser|mcp_oauth|mcp_oauth_config|skill_tools|sandbox_git|sandbox_helper_swap|attack_keyring|attack_launcher_config|attack_mnt_sockets|attack_chown|attack_git_index|attack_git_protected_index|attack_git_history|attack_npx_local_bin|attack_python_cwd|attack_grant_swap"

// TestAttackScriptsAsNormalUser re-runs the attack scripts as an unprivileged user when the
// tests run as root: it creates the user gemtest if needed and runs this test binary as
// that user, so testscript, gem, git and every extension run without root.
// GEM_ATTACK_SCRIPTS (names joined by |, each one of attackScripts) runs only those.
func TestAttackScriptsAsNormalUser(t *testing.T) {
	scripts := attackScripts
	if only := os.Getenv("GEM_ATTACK_SCRIPTS"); only != "" {
		for _, name := range strings.Split(only, "|") {
			if !slices.Contains(strings.Split(attackScripts, "|"), name) {
				t.Fatalf("GEM_ATTACK_SCRIPTS: %s is not one of attackScripts", name)
			}
		}
		scripts = only
	}
	u := testuser.Ensure(t)
	bin := u.TestBinary(t)
	// The scripts and the sample extensions, where the user can read them (the checkout may
	// sit in a folder closed to other users, such as /root): linked when the filesystem
	// allows, else copied.
	tree := filepath.Join(u.Dir, "repo")
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
	cmd := u.Command(bin, filepath.Join(tree, "cmd", "gem"), []string{"GEM_TEST_REPO=" + tree},
		"-test.run", "^TestScripts$/^("+scripts+")$", "-test.v", "-test.timeout", "5m")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the attack scripts as user gemtest: %v\n%s", err, out)
	}
	t.Logf("as user gemtest:\n%s", out)
	for _, name := range strings.Split(scripts, "|") {
		if !strings.Contains(string(out), "--- PASS: TestScripts/"+name+" ") {
			t.Errorf("script %s did not pass as user gemtest (skipped?):\n%s", name, out)
		}
	}
}
