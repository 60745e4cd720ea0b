package payload

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/host/toolchain/launcher"
	"github.com/gemhost/gem/internal/npmregistry"
	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/registry/lockfile"
)

func TestReadTree(t *testing.T) {
	top := lockfile.Payload{Type: "npm", Name: "srv", Version: "1.0.0", Integrity: "sha512-top"}
	lock := func(packages string) []byte {
		return []byte(`{"lockfileVersion": 3, "packages": {"": {}, "node_modules/srv": {"version": "1.0.0", "integrity": "sha512-top"}` + packages + `}}`)
	}
	for _, tc := range []struct {
		name, lock, err string
		n               int
	}{
		{"top only", string(lock("")), "", 1},
		{"nested and scoped", string(lock(`, "node_modules/@a/b": {"version": "2.0.0", "integrity": "sha512-b"}, "node_modules/srv/node_modules/c": {"version": "1.0.0", "integrity": "sha512-c"}`)), "", 3},
		{"bundled inside its parent", string(lock(`, "node_modules/srv/node_modules/d": {"version": "1.0.0", "inBundle": true}`)), "", 1},
		{"outside node_modules", string(lock(`, "../../evil": {"version": "1.0.0", "integrity": "sha512-e"}`)), "is not at a path under node_modules", 0},
		{"dot-dot inside", string(lock(`, "node_modules/../x": {"version": "1.0.0", "integrity": "sha512-e"}`)), "is not at a path under node_modules", 0},
		{"absolute", string(lock(`, "/etc/x": {"version": "1.0.0", "integrity": "sha512-e"}`)), "is not at a path under node_modules", 0},
		{"a link", string(lock(`, "node_modules/l": {"link": true, "resolved": "../../home"}`)), "is a link", 0},
		{"git dependency", string(lock(`, "node_modules/g": {"version": "1.0.0", "resolved": "git+https://x/g.git#abc"}`)), "no version or integrity", 0},
		{"other top version", `{"lockfileVersion": 3, "packages": {"node_modules/srv": {"version": "1.0.1", "integrity": "sha512-top"}}}`, "its top package is not srv@1.0.0", 0},
		{"other top integrity", `{"lockfileVersion": 3, "packages": {"node_modules/srv": {"version": "1.0.0", "integrity": "sha512-other"}}}`, "with the lock's integrity", 0},
		{"lockfile v1", `{"lockfileVersion": 1, "dependencies": {}}`, "not a lockfileVersion 2 or 3", 0},
		{"not JSON", `{`, "its package-lock.json", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := readTree([]byte(tc.lock), top)
			if tc.err != "" {
				var te *TreeError
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &te) {
					t.Fatalf("err %v, want a TreeError with %q", err, tc.err)
				}
				return
			}
			if err != nil || len(tree) != tc.n {
				t.Fatalf("got %d packages, %v; want %d", len(tree), err, tc.n)
			}
		})
	}
}

func TestCheckIntegrity(t *testing.T) {
	data := []byte("tarball")
	sum := sha512.Sum512(data)
	good := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	for _, tc := range []struct {
		integrity string
		ok        bool
	}{
		{good, true},
		{"sha1-AAAA " + good, false}, // the first known hash decides
		{"md5-AAAA " + good, true},
		{"sha512-" + base64.StdEncoding.EncodeToString(make([]byte, 64)), false},
		{"nonsense", false},
	} {
		if err := checkIntegrity(data, tc.integrity); (err == nil) != tc.ok {
			t.Errorf("checkIntegrity(%q) = %v, want ok %v", tc.integrity, err, tc.ok)
		}
	}
}

// npmEnv serves a registry on 127.0.0.1 with srv@1.0.0 (depending on dep@^1) and dep 1.0.0,
// 1.1.0, and returns an environment whose npm uses it, with a home of its own.
func npmEnv(t *testing.T) ([]string, lockfile.Payload) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("needs npm")
	}
	home := testhome.Dir(t, "npm")
	reg := filepath.Join(home, "registry")
	npmregistry.Pack(reg, "dep", "1.0.0", map[string]string{"index.js": "module.exports = 'dep 1.0.0'\n"})
	npmregistry.Pack(reg, "dep", "1.1.0", map[string]string{"index.js": "module.exports = 'dep 1.1.0'\n"})
	npmregistry.Pack(reg, "srv", "1.0.0", map[string]string{
		"package.json": `{"name": "srv", "version": "1.0.0", "bin": {"srv": "index.js"}, "dependencies": {"dep": "^1.0.0"}}`,
		"index.js":     "#!/usr/bin/env node\nconsole.log('srv with ' + require('dep'))\n",
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/"
	srv := &http.Server{Handler: npmregistry.Handler(reg, base, 0)}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	environ := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "npm_config_registry=" + base, "npm_config_cache=" + filepath.Join(home, "npm-cache")}
	data, _ := os.ReadFile(filepath.Join(reg, "srv-1.0.0.tgz"))
	sum := sha512.Sum512(data)
	return environ, lockfile.Payload{Server: "s", Type: "npm", Name: "srv", Version: "1.0.0", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(sum[:])}
}

// TestPackInstallNPM: a payload packed with its tree installs offline (no registry) and npx
// runs it from there with its dependency; a tarball changed inside the files, or a top
// package other than the lock's, is refused and nothing is installed.
func TestPackInstallNPM(t *testing.T) {
	environ, p := npmEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	packed := testhome.Dir(t, "packed")
	names, tree, err := PackNPM(ctx, environ, p, "", packed)
	if err != nil || len(tree) != 64 {
		t.Fatal(tree, err)
	}
	if len(names) != 3 || names[0] != npmLockName {
		t.Fatalf("packed %v, want the lock and two tarballs", names)
	}
	other := p
	other.Integrity = "sha512-" + base64.StdEncoding.EncodeToString(make([]byte, 64))
	if _, _, err := PackNPM(ctx, environ, other, "", testhome.Dir(t, "other")); err == nil || !strings.Contains(err.Error(), "with the lock's integrity") {
		t.Errorf("a registry serving other bytes than the lock's: %v", err)
	}

	offline := []string{"HOME=" + testhome.Dir(t, "home2"), "PATH=" + os.Getenv("PATH"), "npm_config_registry=http://127.0.0.1:9/", "npm_config_fetch_retries=0"}
	root := filepath.Join(testhome.Dir(t, "gemhome"), "payloads")

	// a tree other than the one the lock pins (a mirror choosing the dependencies), or
	// none pinned: refused before npm runs
	for _, pin := range []string{"", strings.Repeat("0", 64)} {
		q := p
		q.Tree = pin
		if err := InstallNPM(ctx, nil, q, packed, filepath.Join(testhome.Dir(t, "gemhome0"), "payloads")); err == nil || !strings.Contains(err.Error(), "not the tree the lock pins") {
			t.Errorf("tree %q: %v", pin, err)
		}
	}
	p.Tree = tree
	other.Tree = tree

	// a changed tarball (the bundle's lock unchanged): npm's integrity check refuses it
	tampered := testhome.Dir(t, "tampered")
	for _, n := range names {
		data, _ := os.ReadFile(filepath.Join(packed, n))
		os.WriteFile(filepath.Join(tampered, n), data, 0o644)
	}
	tgz := filepath.Join(tampered, names[1])
	data, _ := os.ReadFile(tgz)
	os.WriteFile(tgz, append(data, 0), 0o644)
	if err := InstallNPM(ctx, offline, p, tampered, root); err == nil || !strings.Contains(err.Error(), "EINTEGRITY") {
		t.Errorf("a changed tarball: %v, want EINTEGRITY", err)
	}
	// the lock's pin is another package: refused before npm runs
	if err := InstallNPM(ctx, offline, other, packed, root); err == nil || !strings.Contains(err.Error(), "its top package") {
		t.Errorf("another top package: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "npm")); len(entries) != 0 {
		t.Fatalf("refused installs left %v", entries)
	}

	// what a killed install left an hour ago goes; a running one's stays
	stale, fresh := filepath.Join(root, "npm", ".stage-killed"), filepath.Join(root, "npm", ".stage-running")
	os.MkdirAll(stale, 0o755)
	os.MkdirAll(fresh, 0o755)
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(stale, old, old)
	if err := InstallNPM(ctx, offline, p, packed, root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a killed install's staging folder was left")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a running install's staging folder was removed")
	}
	dir, ok := launcher.NPMInstalled(root, p)
	if !ok {
		t.Fatal("not installed")
	}
	if err := InstallNPM(ctx, offline, p, "/nonexistent", root); err != nil {
		t.Errorf("installed again: %v (want nothing done)", err)
	}
	npx := exec.CommandContext(ctx, "npx", launcher.PrefixArgs([]string{"-y", "srv@1.0.0"}, dir)...)
	npx.Dir = testhome.Dir(t, "cwd")
	npx.Env = append(offline, "PATH="+filepath.Join(dir, "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := npx.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "srv with dep 1.1.0") {
		t.Fatalf("npx from the payload: %v\n%s", err, out)
	}
}

// FuzzReadTree: whatever a bundle's package-lock.json holds, a tree gem accepts has every
// package under node_modules (no "..", no absolute path), none a link, each with a version
// and an integrity, and the pinned top package.
func FuzzReadTree(f *testing.F) {
	pin := lockfile.Payload{Type: "npm", Name: "srv", Version: "1.0.0", Integrity: "sha512-top"}
	f.Add([]byte(`{"lockfileVersion": 3, "packages": {"": {}, "node_modules/srv": {"version": "1.0.0", "integrity": "sha512-top"}, "node_modules/srv/node_modules/@a/b": {"version": "2.0.0", "integrity": "sha512-b"}}}`))
	f.Add([]byte(`{"lockfileVersion": 2, "packages": {"node_modules/srv": {"version": "1.0.0", "integrity": "sha512-top"}, "node_modules/../x": {"version": "1", "integrity": "sha512-x"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, err := readTree(data, pin)
		if err != nil {
			return
		}
		if top, ok := tree["node_modules/srv"]; !ok || top.Integrity != pin.Integrity {
			t.Fatalf("accepted without the pinned top package: %s", data)
		}
		for path, e := range tree {
			if !strings.HasPrefix(path, "node_modules/") || strings.Contains(path, "..") || strings.Contains(path, "//") || e.Link || e.Version == "" || e.Integrity == "" {
				t.Fatalf("accepted %q %+v", path, e)
			}
			if !strings.HasSuffix(tarballName(e.Integrity), ".tgz") || strings.ContainsRune(tarballName(e.Integrity), '/') {
				t.Fatalf("tarball name %q", tarballName(e.Integrity))
			}
		}
	})
}
