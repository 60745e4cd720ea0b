package install

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/npmregistry"
	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/manifest/claude"
)

// gitRepo makes a git repository at dir holding files, committed; it returns the blob id
// of each file.
func gitRepo(t *testing.T, dir string, files map[string]string) map[string]string {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-qm", "one")
	blobs := map[string]string{}
	for rel := range files {
		blobs[rel] = gitIn(t, dir, "rev-parse", "HEAD:"+rel)
	}
	return blobs
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestGitSparseFetchesOnlyTheFolder: a git-subdir source is a partial, sparse clone: where
// the server allows filters, the other folders' files are never fetched (their blobs are
// missing from the clone); where it does not, git clones everything and the folder is
// still there. A pinned commit is checked out, and one that does not exist is refused.
func TestGitSparseFetchesOnlyTheFolder(t *testing.T) {
	base := testhome.Dir(t, "sparse")
	env := []string{"HOME=" + base, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
	for _, allow := range []bool{true, false} {
		repo := filepath.Join(base, map[bool]string{true: "allow", false: "deny"}[allow])
		blobs := gitRepo(t, repo, map[string]string{"tools/sub/plugin.json": `{"name":"sub"}`, "other/big.bin": strings.Repeat("x", 1<<16)})
		gitIn(t, repo, "config", "uploadpack.allowFilter", map[bool]string{true: "true", false: "false"}[allow])
		clone := filepath.Join(repo + "-clone")
		if err := gitSparse(context.Background(), env, "file://"+repo, "", "", "tools/sub", clone); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(clone, "tools/sub/plugin.json")); err != nil {
			t.Errorf("allow=%v: the folder is not checked out: %v", allow, err)
		}
		if _, err := os.Stat(filepath.Join(clone, "other")); err == nil {
			t.Errorf("allow=%v: another folder is checked out", allow)
		}
		cmd := exec.Command("git", "-C", clone, "cat-file", "-e", blobs["other/big.bin"])
		cmd.Env = append(env, "GIT_NO_LAZY_FETCH=1")
		present := cmd.Run() == nil
		if allow && present {
			t.Errorf("the server allows filters, yet another folder's file was fetched")
		}
		if !allow && !present {
			t.Errorf("without filters git clones everything: the blob should be there")
		}
	}
	repo := filepath.Join(base, "allow")
	head := gitIn(t, repo, "rev-parse", "HEAD")
	if err := gitSparse(context.Background(), env, "file://"+repo, "main", head, "tools/sub", filepath.Join(base, "pinned")); err != nil {
		t.Errorf("a pinned commit: %v", err)
	}
	err := gitSparse(context.Background(), env, "file://"+repo, "", "0000000000000000000000000000000000000000", "tools/sub", filepath.Join(base, "missing"))
	if err == nil || !strings.Contains(err.Error(), "has no commit 0000000") {
		t.Errorf("a missing pinned commit: %v", err)
	}
}

func TestSplitPluginRef(t *testing.T) {
	for in, want := range map[string][2]string{
		"rel@acme-tools":         {"rel", "acme-tools"},
		"a.b_c@m.1":              {"a.b_c", "m.1"},
		"owner/repo":             {},
		"git@github.com:o/r.git": {},
		"@m":                     {},
		"p@":                     {},
		"p@m@x":                  {},
	} {
		p, m, ok := SplitPluginRef(in)
		if ok != (want[0] != "") || p != want[0] || m != want[1] {
			t.Errorf("%q: %q %q %v", in, p, m, ok)
		}
	}
}

// TestNpmPluginSource: an npm source is npm pack of package@version from its registry (a
// local one speaking npm's wire format), unpacked; a version the registry lacks fails.
func TestNpmPluginSource(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	base := testhome.Dir(t, "npm")
	if err := npmregistry.Pack(filepath.Join(base, "registry"), "@acme/np-plugin", "1.2.0", map[string]string{".claude-plugin/plugin.json": `{"name": "np-plugin", "version": "1.2.0"}`}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	regURL := "http://" + ln.Addr().String() + "/"
	srv := &http.Server{Handler: npmregistry.Handler(filepath.Join(base, "registry"), regURL, 0)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	f := &Fetcher{Environ: []string{"HOME=" + base, "PATH=" + os.Getenv("PATH"), "npm_config_cache=" + filepath.Join(base, "cache"), "npm_config_update_notifier=false"}}
	staging := filepath.Join(base, "staging")
	dir, err := f.npmPack(context.Background(), claude.PluginSource{Kind: "npm", Package: "@acme/np-plugin", Version: "1.2.0", Registry: regURL}, staging)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, ".claude-plugin/plugin.json")); err != nil || !strings.Contains(string(data), "np-plugin") {
		t.Errorf("unpacked: %s %v", data, err)
	}
	_, err = f.npmPack(context.Background(), claude.PluginSource{Kind: "npm", Package: "@acme/np-plugin", Version: "9.9.9", Registry: regURL}, filepath.Join(base, "staging2"))
	if err == nil || !strings.Contains(err.Error(), "npm pack @acme/np-plugin@9.9.9") {
		t.Errorf("a missing version: %v", err)
	}
}
