package payload

// An npm payload carried by a bundle (gem ext bundle) or a mirror is the package's whole
// dependency tree, so that npx starts it with no registry at all:
//
//   - PackNPM (bundle time, with the network): npm resolves the tree the way npx would
//     (npm install --package-lock-only, with the user's registry, auth, proxy and CA settings),
//     npm pack fetches each package's tarball as the registry serves it, and each is checked
//     against the integrity npm recorded; the top package's must be the lock's. The files
//     carried are that package-lock.json and the tarballs, named by their integrity.
//   - InstallNPM (install time, offline): the tree is checked (paths only under node_modules,
//     no links, every package with a tarball of its integrity, the top package the one the
//     lock pins) and installed by npm ci --offline --ignore-scripts from those tarballs into
//     $GEM_HOME/payloads/npm/<name>@<version>-<hash>, staged and renamed into place. npm
//     checks each tarball against its integrity. No install script runs there, outside any
//     sandbox: a package that needs one (to fetch a platform binary) fails offline anyway.
//   - NPMInstalled (launch): the server's npx is given --prefix that folder and its
//     node_modules/.bin first on PATH (read-only in its sandbox): npx finds the pinned
//     version installed and runs it without asking the registry.

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gemhost/gem/host/toolchain/launcher"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/lockfile"
)

// NPMArtifactType is the artifact type of an npm payload in a bundle or a mirror.
const NPMArtifactType = "application/vnd.gem.payload.npm.v1"

// npmLockName is the package-lock.json carried with the tarballs.
const npmLockName = "package-lock.json"

// NPMTag is the tag an npm payload has in a bundle or a mirror: found by what the lock pins
// (its integrity), as extensions are found by the hash of their files.
func NPMTag(p lockfile.Payload) string {
	sum := sha256.Sum256([]byte(p.Integrity))
	return "npm-" + hex.EncodeToString(sum[:])
}

// npmLock is the part of a package-lock.json (v2, v3) gem reads.
type npmLock struct {
	LockfileVersion int                        `json:"lockfileVersion"`
	Packages        map[string]json.RawMessage `json:"packages"`
}

type npmEntry struct {
	Name      string `json:"name"` // an aliased package's real name
	Version   string `json:"version"`
	Resolved  string `json:"resolved"`
	Integrity string `json:"integrity"`
	Link      bool   `json:"link"`
	InBundle  bool   `json:"inBundle"`
}

// npmPathRE is a package's place in the tree: node_modules/<name>, nested.
var npmPathRE = regexp.MustCompile(`^node_modules/(@[a-z0-9][\w.~-]*/)?[a-z0-9_~-][\w.~-]*(/node_modules/(@[a-z0-9][\w.~-]*/)?[a-z0-9_~-][\w.~-]*)*$`)

// TreeError is an npm payload's tree gem refuses to carry or install.
type TreeError struct {
	Payload lockfile.Payload
	Err     error
}

func (e *TreeError) Error() string {
	return fmt.Sprintf("the dependency tree of %s@%s: %v", e.Payload.Name, e.Payload.Version, e.Err)
}
func (e *TreeError) Unwrap() error { return e.Err }

// readTree reads and checks a package-lock.json for p: every package at a path under
// node_modules, none a link, each (but those inside another's tarball) with a version and an
// integrity; the top package the one p pins. It returns the packages by path.
func readTree(data []byte, p lockfile.Payload) (map[string]npmEntry, error) {
	fail := func(format string, a ...any) (map[string]npmEntry, error) {
		return nil, &TreeError{Payload: p, Err: fmt.Errorf(format, a...)}
	}
	var l npmLock
	if err := json.Unmarshal(data, &l); err != nil {
		return fail("its package-lock.json: %v", err)
	}
	if l.LockfileVersion < 2 || l.Packages == nil {
		return fail("its package-lock.json is not a lockfileVersion 2 or 3 lock")
	}
	out := map[string]npmEntry{}
	for path, raw := range l.Packages {
		if path == "" {
			continue
		}
		var e npmEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return fail("package %q: %v", path, err)
		}
		switch {
		case !npmPathRE.MatchString(path) || slices.ContainsFunc(strings.Split(path, "/"), func(s string) bool { return s == "." || s == ".." }):
			return fail("package %q is not at a path under node_modules", path)
		case e.Link:
			return fail("package %q is a link to %q, not a package", path, e.Resolved)
		case e.InBundle:
			continue // inside its parent's tarball
		case e.Version == "" || e.Integrity == "":
			return fail("package %q has no version or integrity (a git or local dependency cannot be carried)", path)
		}
		out[path] = e
	}
	top, ok := out["node_modules/"+p.Name]
	if !ok || top.Version != p.Version || top.Integrity != p.Integrity {
		return fail("its top package is not %s@%s with the lock's integrity %s", p.Name, p.Version, p.Integrity)
	}
	return out, nil
}

// treeDigest is the sha256 of a tree: every package's path, version and integrity, sorted
// (lockfile.Payload.Tree).
func treeDigest(tree map[string]npmEntry) string {
	paths := make([]string, 0, len(tree))
	for p := range tree {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s %s %s %s\n", p, tree[p].Name, tree[p].Version, tree[p].Integrity)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// tarballName is the file a tarball of integrity is carried as.
func tarballName(integrity string) string {
	sum := sha256.Sum256([]byte(integrity))
	return hex.EncodeToString(sum[:16]) + ".tgz"
}

// checkIntegrity checks data against an npm integrity (an SRI: sha512-…, sha1-…; several
// separated by spaces, any may match).
func checkIntegrity(data []byte, integrity string) error {
	for _, sri := range strings.Fields(integrity) {
		alg, b64, ok := strings.Cut(sri, "-")
		want, err := base64.StdEncoding.DecodeString(b64)
		if !ok || err != nil {
			continue
		}
		var h hash.Hash
		switch alg {
		case "sha512":
			h = sha512.New()
		case "sha256":
			h = sha256.New()
		case "sha1":
			h = sha1.New()
		default:
			continue
		}
		h.Write(data)
		if bytes.Equal(h.Sum(nil), want) {
			return nil
		}
		return fmt.Errorf("its bytes are not those its integrity %s names", sri)
	}
	return fmt.Errorf("its integrity %q names no hash gem knows", integrity)
}

// npmCommand runs npm with args in dir, environ plus the settings every payload run needs.
func npmCommand(ctx context.Context, environ []string, dir string, args ...string) ([]byte, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, ErrNoNPM
	}
	cmd := exec.CommandContext(ctx, npm, append(args, "--no-audit", "--no-fund", "--ignore-scripts")...)
	cmd.Dir = dir
	cmd.Env = append(slices.Clip(environ), "NPM_CONFIG_UPDATE_NOTIFIER=false")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		var lines []string
		for _, l := range strings.Split(msg, "\n") {
			if strings.HasPrefix(l, "npm error") || strings.HasPrefix(l, "npm ERR!") {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			msg = strings.Join(lines[:min(len(lines), 3)], "; ")
		}
		return nil, fmt.Errorf("npm %s: %v: %s", args[0], err, msg)
	}
	return out, nil
}

// PackNPM fetches p (an npm payload: name@version with its integrity) with its whole
// dependency tree into dir, as the user's npm resolves and fetches it (registry: the
// server's --registry, else the user's), and returns the files written — package-lock.json
// and a tarball per package, each checked against its integrity — and the tree's digest
// (lockfile.Payload.Tree).
func PackNPM(ctx context.Context, environ []string, p lockfile.Payload, registryURL, dir string) ([]string, string, error) {
	names, tree, err := packNPM(ctx, environ, p, registryURL, dir)
	if err != nil {
		return nil, "", err
	}
	return names, treeDigest(tree), nil
}

func packNPM(ctx context.Context, environ []string, p lockfile.Payload, registryURL, dir string) ([]string, map[string]npmEntry, error) {
	work, err := os.MkdirTemp(dir, ".npm-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "package.json"), []byte(`{"name": "gem-payload", "private": true}`+"\n"), 0o644); err != nil {
		return nil, nil, err
	}
	reg := []string{}
	if registryURL != "" {
		reg = []string{"--registry", registryURL}
	}
	if _, err := npmCommand(ctx, environ, work, append([]string{"install", "--package-lock-only", "--save-exact", p.Name + "@" + p.Version}, reg...)...); err != nil {
		return nil, nil, err
	}
	lockData, err := os.ReadFile(filepath.Join(work, npmLockName))
	if err != nil {
		return nil, nil, err
	}
	tree, err := readTree(lockData, p)
	if err != nil {
		return nil, nil, err
	}
	// One npm pack per hundred packages; each distinct name@version once.
	specs := map[string][]npmEntry{}
	for path, e := range tree {
		name := e.Name
		if name == "" {
			name = path[strings.LastIndex(path, "node_modules/")+len("node_modules/"):]
		}
		specs[name+"@"+e.Version] = append(specs[name+"@"+e.Version], e)
	}
	keys := make([]string, 0, len(specs))
	for k := range specs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	packs := filepath.Join(work, "packs")
	if err := os.Mkdir(packs, 0o755); err != nil {
		return nil, nil, err
	}
	names := []string{npmLockName}
	for start := 0; start < len(keys); start += 100 {
		chunk := keys[start:min(start+100, len(keys))]
		out, err := npmCommand(ctx, environ, work, append(append([]string{"pack", "--json", "--pack-destination", packs}, chunk...), reg...)...)
		if err != nil {
			return nil, nil, err
		}
		var packed []struct {
			ID       string `json:"id"`
			Filename string `json:"filename"`
		}
		if err := json.Unmarshal(out, &packed); err != nil {
			return nil, nil, fmt.Errorf("npm pack: unexpected answer: %w", err)
		}
		for _, pk := range packed {
			data, err := os.ReadFile(filepath.Join(packs, filepath.Base(pk.Filename)))
			if err != nil {
				return nil, nil, err
			}
			for _, e := range specs[pk.ID] {
				if err := checkIntegrity(data, e.Integrity); err != nil {
					return nil, nil, &TreeError{Payload: p, Err: fmt.Errorf("%s as the registry serves it: %w", pk.ID, err)}
				}
				name := tarballName(e.Integrity)
				if !slices.Contains(names, name) {
					if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
						return nil, nil, err
					}
					names = append(names, name)
				}
			}
			delete(specs, pk.ID)
		}
	}
	if len(specs) > 0 {
		missing := make([]string, 0, len(specs))
		for k := range specs {
			missing = append(missing, k)
		}
		sort.Strings(missing)
		return nil, nil, &TreeError{Payload: p, Err: fmt.Errorf("npm pack did not fetch %s", strings.Join(missing, ", "))}
	}
	if err := os.WriteFile(filepath.Join(dir, npmLockName), lockData, 0o644); err != nil {
		return nil, nil, err
	}
	sort.Strings(names[1:])
	return names, tree, nil
}

// InstallNPM installs the npm payload p from the files PackNPM wrote (in dir, as a bundle
// carried them) into launcher.NPMDir(root, p), with no network: the tree checked (readTree), npm ci
// --offline from the tarballs (npm checks each against its integrity), no install script
// run; staged beside it and renamed into place. Already there: nothing is done.
func InstallNPM(ctx context.Context, environ []string, p lockfile.Payload, dir, root string) error {
	dest := launcher.NPMDir(root, p)
	if _, ok := launcher.NPMInstalled(root, p); ok {
		return nil
	}
	lockData, err := os.ReadFile(filepath.Join(dir, npmLockName))
	if err != nil {
		return &TreeError{Payload: p, Err: err}
	}
	tree, err := readTree(lockData, p)
	if err != nil {
		return err
	}
	if got := treeDigest(tree); p.Tree != got {
		return &TreeError{Payload: p, Err: fmt.Errorf("it is not the tree the lock pins (tree %s, the lock's %s)", got, orNone(p.Tree))}
	}
	var l map[string]any
	if err := json.Unmarshal(lockData, &l); err != nil {
		return &TreeError{Payload: p, Err: err}
	}
	packages, _ := l["packages"].(map[string]any)
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for path, e := range tree {
		tgz := filepath.Join(absDir, tarballName(e.Integrity))
		if _, err := os.Stat(tgz); err != nil {
			return &TreeError{Payload: p, Err: fmt.Errorf("package %q (%s) is not carried", path, e.Version)}
		}
		entry, _ := packages[path].(map[string]any)
		entry["resolved"] = "file:" + tgz
	}
	deps := map[string]string{p.Name: p.Version}
	packages[""] = map[string]any{"name": "gem-payload", "dependencies": deps}
	l["name"] = "gem-payload"
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	dropStaleStages(filepath.Dir(dest))
	stage, err := os.MkdirTemp(filepath.Dir(dest), ".stage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	pkgJSON, _ := json.Marshal(map[string]any{"name": "gem-payload", "private": true, "dependencies": deps})
	newLock, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(stage, "package.json"), pkgJSON, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(stage, npmLockName), newLock, 0o644); err != nil {
		return err
	}
	// Its own cache: nothing of the user's npm cache is read or changed, and the
	// tarballs are read from where they are.
	cache := filepath.Join(stage, ".cache")
	env := append(slices.Clip(environ), "npm_config_cache="+cache)
	if _, err := npmCommand(ctx, env, stage, "ci", "--offline", "--prefix", stage); err != nil {
		return &TreeError{Payload: p, Err: err}
	}
	if err := os.RemoveAll(cache); err != nil {
		return err
	}
	if err := os.Rename(stage, dest); err != nil {
		if _, ok := launcher.NPMInstalled(root, p); ok {
			return nil // another gem installed it meanwhile
		}
		return err
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// dropStaleStages removes what killed installs left in dir (staging folders older than an
// hour: a running install's own is younger).
func dropStaleStages(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".stage-") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// ErrNotCarried: the payload type cannot be carried by a bundle (PyPI: uv keeps what it
// fetched by index, so a bundle would have to serve an index at every start).
var ErrNotCarried = errors.New("only npm payloads are carried by bundles")

// Carrier carries npm payloads in bundles and mirrors (registry/install.PayloadCarrier):
// with the user's npm and environment, installed under Root ($GEM_HOME/payloads).
type Carrier struct {
	Environ []string
	Root    string
}

// Tag is where p is kept in a bundle ("": not carried: only npm payloads are).
func (c Carrier) Tag(p lockfile.Payload) string {
	if p.Type != "npm" || p.Integrity == "" {
		return ""
	}
	return NPMTag(p)
}

// ArtifactType is the artifact type p is kept as.
func (c Carrier) ArtifactType(lockfile.Payload) string { return NPMArtifactType }

// Pack fetches p with its tree from the registry x's server names (--registry), else the
// user's.
func (c Carrier) Pack(ctx context.Context, x *registry.Extension, p lockfile.Payload, dir string) ([]string, string, error) {
	if c.Tag(p) == "" {
		return nil, "", ErrNotCarried
	}
	reg := ""
	for _, s := range x.Manifest().MCPServers {
		if pkg, ok := launcher.PackageOf(s.Command, s.Args); ok && s.Name == p.Server && pkg.Name == p.Name {
			reg = pkg.Registry
		}
	}
	return PackNPM(ctx, c.Environ, p, reg, dir)
}

// Install installs p from the files Pack wrote.
func (c Carrier) Install(ctx context.Context, p lockfile.Payload, dir string) error {
	return InstallNPM(ctx, c.Environ, p, dir, c.Root)
}
