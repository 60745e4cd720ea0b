package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
)

// BenchmarkGuard: file-heavy jobs in a workspace the program may write, with the guard (every
// name-changing call through the supervisor), against the same job without any sandbox and
// in the sandbox without the guard (Landlock and namespaces alone), interleaved in one run:
// medians and the ratios to the plain run. Jobs: unpacking a 10,000-file tree (tar), then a
// git init and git add of it (GIT_DIR in the program's data folder: .git in the workspace is
// closed to programs), a git clone of that tree's repository (its git folder in the data
// folder too), and npm installing a local package of 500 files (when npm is here).
// The workspace lives outside /tmp (under the user's cache folder). roundtrip-10k is the floor:
// 10,000 calls the supervisor only lets through, what one notification costs here.
// Each round starts with the next mode and the folders are removed after the runs: ext4 makes
// files slowly for a minute after many were removed (it skips recently freed inodes).
//
//	go test ./host/sandbox -run '^$' -bench Guard -benchtime 5x
func BenchmarkGuard(b *testing.B) {
	if LandlockABI() < 1 || !guardArch {
		b.Skip("the guard needs Landlock and amd64 or arm64")
	}
	src := testDir(b)
	tree := filepath.Join(src, "tree")
	for d := range 100 {
		dir := filepath.Join(tree, fmt.Sprintf("d%02d", d))
		os.MkdirAll(dir, 0o755)
		for f := range 100 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", f)), []byte(fmt.Sprintf("file %d of %d\n", f, d)), 0o644)
		}
	}
	tarball := filepath.Join(src, "tree.tar")
	if out, err := exec.Command("tar", "-C", src, "-cf", tarball, "tree").CombinedOutput(); err != nil {
		b.Fatalf("tar: %v %s", err, out)
	}
	jobs := []struct{ name, script string }{
		{"untar-10k", "tar -xf " + tarball},
		{"git-add-10k", "tar -xf " + tarball + " && GIT_DIR=$DATA/repo git init -q && GIT_DIR=$DATA/repo GIT_WORK_TREE=. git add -A"},
	}
	if repo := benchRepo(b, src, tree); repo != "" {
		// A clone of the tree's repository (made once, a local one: no network in the
		// figure): its objects fetched as a pack (--no-local, as from a server) into the
		// program's data folder, then its 10,000 files checked out in the workspace.
		jobs = append(jobs, struct{ name, script string }{"git-clone-10k",
			"git clone -q --no-local --bare " + repo + " $DATA/repo && git --git-dir=$DATA/repo --work-tree=. reset -q --hard"})
	}
	// The system's python (a version manager's shim on PATH would be found outside the sandbox
	// only, and timed with its own start).
	if py := "/usr/bin/python3"; fileExists(py) {
		// The floor: a call the supervisor only lets through (umask), 10,000 times, so
		// the ratios above can be read against what one round trip costs on this machine.
		jobs = append(jobs, struct{ name, script string }{"roundtrip-10k", py + ` -c "
import os
for i in range(10000): os.umask(0o22)"`})
	}
	if npm, err := exec.LookPath("npm"); err == nil {
		pkg := filepath.Join(src, "pkg")
		os.MkdirAll(filepath.Join(pkg, "lib"), 0o755)
		os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"gem-bench-pkg","version":"1.0.0"}`), 0o644)
		for i := range 500 {
			os.WriteFile(filepath.Join(pkg, "lib", fmt.Sprintf("m%03d.js", i)), []byte(fmt.Sprintf("module.exports = %d;\n", i)), 0o644)
		}
		cmd := exec.Command(npm, "pack", "--silent", "--pack-destination", src)
		cmd.Dir = pkg
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("npm pack: %v %s", err, out)
		}
		jobs = append(jobs, struct{ name, script string }{"npm-install-500",
			"echo '{}' > package.json && npm install --offline --no-audit --no-fund --silent --cache $DATA/npm " + filepath.Join(src, "gem-bench-pkg-1.0.0.tgz")})
	}
	for _, job := range jobs {
		b.Run(job.name, func(b *testing.B) {
			var plain, boxed, guarded, over []float64
			var done []string
			defer func() {
				for _, d := range done {
					os.RemoveAll(d)
				}
			}()
			modes := []string{"plain", "sandbox", "guard"}
			// The floor of a mechanism that closes names by construction without a round
			// trip per call: the kernel's own overlayfs over the workspace (the job's writes
			// kept apart, for gem to apply checked), in a user and mount namespace of its own.
			if _, err := exec.LookPath("unshare"); err == nil && overlayUsable(b) {
				modes = append(modes, "overlay")
			}
			for round := 0; b.Loop(); round++ {
				for i := range modes {
					// Each round starts with the next mode: the file system's state after
					// the earlier runs weighs on each mode alike.
					mode := modes[(round+i)%len(modes)]
					ws, data, tmp := testDir(b), testDir(b), testDir(b)
					var pol *Policy
					script := job.script
					switch mode {
					case "overlay":
						up, wk := testDir(b), testDir(b)
						done = append(done, up, wk)
						// overlayfs leaves wk/work with mode 0: opened again for the removal.
						b.Cleanup(func() { os.Chmod(filepath.Join(wk, "work"), 0o700) })
						script = "mount -t overlay overlay -o lowerdir=" + ws + ",upperdir=" + up + ",workdir=" + wk + ",userxattr " + ws + " && cd " + ws + " && " + job.script
					case "sandbox":
						p := ForExtension(Access{Extension: src, Workspace: ws, Data: data, Temp: tmp, Read: []string{src}, Write: []string{ws}})
						p.Guard = false
						pol = &p
					case "guard":
						p := ForExtension(Access{Extension: src, Workspace: ws, WriteWorkspace: true, Data: data, Temp: tmp, Read: []string{src}})
						pol = &p
					}
					env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + data, "DATA=" + data, "TMPDIR=" + tmp}
					t0 := nowNanos()
					var out []byte
					var err error
					if mode == "overlay" {
						cmd := exec.Command("unshare", "-Urm", "/bin/sh", "-c", script)
						cmd.Dir, cmd.Env = ws, env
						out, err = cmd.CombinedOutput()
					} else if pol == nil {
						cmd := exec.Command("/bin/sh", "-c", job.script)
						cmd.Dir, cmd.Env = ws, env
						out, err = cmd.CombinedOutput()
					} else {
						out, err = runSandboxed(Program{Path: "/bin/sh", Args: []string{"-c", job.script}, Env: env, Dir: ws, Name: job.name, Policy: pol})
					}
					took := float64(nowNanos() - t0)
					if err != nil {
						b.Fatalf("%s (%s): %v\n%s", job.name, mode, err, out)
					}
					switch mode {
					case "overlay":
						over = append(over, took)
					case "plain":
						plain = append(plain, took)
					case "sandbox":
						boxed = append(boxed, took)
					default:
						guarded = append(guarded, took)
					}
					// Removed after the runs: ext4 makes a file slowly right after many were
					// removed (it skips recently freed inodes), which would weigh on the next
					// mode.
					done = append(done, ws, data)
				}
			}
			mp, ms, mg := medianOf(plain), medianOf(boxed), medianOf(guarded)
			b.ReportMetric(mp/1e6, "plain-ms")
			b.ReportMetric(ms/1e6, "sandbox-ms")
			b.ReportMetric(mg/1e6, "guard-ms")
			b.ReportMetric(mg/mp, "guard/plain")
			b.ReportMetric(ms/mp, "sandbox/plain")
			if len(over) > 0 {
				mo := medianOf(over)
				b.ReportMetric(mo/mp, "overlay/plain")
				b.ReportMetric(mg/mo, "guard/overlay")
			}
		})
	}
}

// benchRepo commits tree to a repository of its own in src (its git folder beside the tree)
// and returns that folder; "" without git.
func benchRepo(b *testing.B, src, tree string) string {
	if _, err := exec.LookPath("git"); err != nil {
		return ""
	}
	repo := filepath.Join(src, "tree.git")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "tree"}} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_DIR="+repo, "GIT_WORK_TREE="+tree)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return repo
}

// overlayUsable reports whether this machine mounts an overlay in a user namespace.
func overlayUsable(b *testing.B) bool {
	lower, up, wk := testDir(b), testDir(b), testDir(b)
	return exec.Command("unshare", "-Urm", "mount", "-t", "overlay", "overlay", "-o", "lowerdir="+lower+",upperdir="+up+",workdir="+wk+",userxattr", lower).Run() == nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// testDir is a fresh folder outside /tmp (which every policy may write).
func testDir(b *testing.B) string { return testhome.Dir(b, "gem-bench-") }

// runSandboxed runs s to its end as gem starts a program (StartCommand: its environment
// reaches it through the helper) and returns its output.
func runSandboxed(s Program) ([]byte, error) {
	cmd, err := Command(s)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := StartCommand(cmd, s)
	if err != nil {
		return out.Bytes(), err
	}
	err = p.Wait()
	return out.Bytes(), err
}
