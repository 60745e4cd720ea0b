package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/paths"
	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/manifest/claude"
	"github.com/gemhost/gem/registry"
)

// Marketplaces are the Claude Code marketplaces gem knows (gem marketplace add): each is a
// catalogue (.claude-plugin/marketplace.json) of plugins and where to fetch them, and
// `gem ext install plugin@marketplace` installs one of them as any other source.
//
// What gem chose, where Claude Code's documentation is silent or gem differs:
//   - A marketplace is fetched into ~/.gem/marketplaces/<name> (its git checkout, a copy of a
//     local folder, or the marketplace.json of a URL), staged and renamed into place, and
//     recorded in ~/.gem/marketplaces.json; update fetches it again the same way, remove
//     drops the record, then the copy. A local folder is copied, not read in place: what
//     was added is what installs, until update.
//   - Sources: owner/repo[@ref] is https://github.com/owner/repo.git (git's url.insteadOf
//     applies, as for every clone); a git URL is cloned; a folder (or its marketplace.json)
//     is copied; an http(s) URL of a .json file is that catalogue alone, whose relative
//     plugin sources then cannot install (there is no repository to take them from).
//   - A plugin's source: relative (inside the marketplace's copy, never out of it, links
//     included), github and url (cloned at ref; with sha, checked out at that commit and
//     verified), git-subdir (a partial, sparse clone: only the folder's files are fetched
//     where the server allows filters, else the whole repository, of which only the folder
//     is kept), npm (npm pack of package@version from its registry, unpacked as an archive).
//   - The install records type "marketplace" and source plugin@marketplace; update asks the
//     marketplace's current copy where the plugin is now (gem marketplace update first).
type Marketplaces struct {
	Paths   paths.Layout
	Fetcher *Fetcher
}

// MarketplaceRecord is one known marketplace, as marketplaces.json keeps it.
type MarketplaceRecord struct {
	Name    string    `json:"name"`
	Source  string    `json:"source"` // as given: owner/repo, a git URL, a folder, a URL
	Kind    string    `json:"kind"`   // github, git, local, url
	Ref     string    `json:"ref,omitempty"`
	Commit  string    `json:"commit,omitempty"` // the checkout's commit (git kinds)
	Updated time.Time `json:"updated"`
	Plugins int       `json:"plugins"`
}

type marketplacesFile struct {
	Marketplaces []MarketplaceRecord `json:"marketplaces"`
}

// pluginRef is plugin@marketplace.
var pluginRef = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)@([A-Za-z0-9][A-Za-z0-9._-]*)$`)

// SplitPluginRef splits plugin@marketplace; ok is false for anything else.
func SplitPluginRef(s string) (plugin, market string, ok bool) {
	m := pluginRef.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

func (ms *Marketplaces) lock() (*Lock, error) {
	return AcquireLock(filepath.Join(ms.Paths.GemHome, "marketplaces.lock"), ms.Fetcher.Progress)
}

// List is the known marketplaces, by name.
func (ms *Marketplaces) List() ([]MarketplaceRecord, error) {
	data, err := os.ReadFile(ms.Paths.MarketplacesFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f marketplacesFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", ms.Paths.MarketplacesFile(), err)
	}
	slices.SortFunc(f.Marketplaces, func(a, b MarketplaceRecord) int { return strings.Compare(a.Name, b.Name) })
	return f.Marketplaces, nil
}

func (ms *Marketplaces) save(list []MarketplaceRecord) error {
	data, err := json.MarshalIndent(marketplacesFile{Marketplaces: list}, "", "  ")
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(ms.Paths.MarketplacesFile(), append(data, '\n'), 0o600)
}

// Open reads a known marketplace's catalogue from its copy.
func (ms *Marketplaces) Open(name string) (*MarketplaceRecord, *claude.Marketplace, error) {
	list, err := ms.List()
	if err != nil {
		return nil, nil, err
	}
	for i := range list {
		if list[i].Name == name {
			m, err := readCatalogue(ms.dir(name))
			return &list[i], m, err
		}
	}
	return nil, nil, &UnknownMarketplaceError{Name: name}
}

func (ms *Marketplaces) dir(name string) string {
	return filepath.Join(ms.Paths.MarketplacesDir(), name)
}

func readCatalogue(dir string) (*claude.Marketplace, error) {
	data, err := fsx.ReadBeneath(dir, filepath.FromSlash(claude.MarketplaceFile), 4<<20)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, filepath.FromSlash(claude.MarketplaceFile)), err)
	}
	return claude.ParseMarketplace(data)
}

// Add fetches the marketplace at source (owner/repo[@ref], a git URL, a folder, a URL of
// marketplace.json) and records it under the name its catalogue gives. Adding again from
// the same source updates it.
func (ms *Marketplaces) Add(ctx context.Context, source string) (*MarketplaceRecord, *claude.Marketplace, error) {
	l, err := ms.lock()
	if err != nil {
		return nil, nil, err
	}
	defer l.Release()
	rec, err := classifyMarketplace(source)
	if err != nil {
		return nil, nil, err
	}
	return ms.fetch(ctx, rec, true)
}

// Update fetches the named marketplaces again (all when names is empty).
func (ms *Marketplaces) Update(ctx context.Context, names []string) ([]MarketplaceRecord, error) {
	l, err := ms.lock()
	if err != nil {
		return nil, err
	}
	defer l.Release()
	list, err := ms.List()
	if err != nil {
		return nil, err
	}
	var out []MarketplaceRecord
	for _, n := range names {
		if !slices.ContainsFunc(list, func(r MarketplaceRecord) bool { return r.Name == n }) {
			return nil, &UnknownMarketplaceError{Name: n}
		}
	}
	for _, r := range list {
		if len(names) > 0 && !slices.Contains(names, r.Name) {
			continue
		}
		nr, _, err := ms.fetch(ctx, r, false)
		if err != nil {
			return out, fmt.Errorf("updating marketplace %q: %w", r.Name, err)
		}
		out = append(out, *nr)
	}
	return out, nil
}

// Remove forgets a marketplace: its record, then its copy. Plugins installed from it stay.
func (ms *Marketplaces) Remove(name string) error {
	l, err := ms.lock()
	if err != nil {
		return err
	}
	defer l.Release()
	list, err := ms.List()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(list, func(r MarketplaceRecord) bool { return r.Name == name })
	if i < 0 {
		return &UnknownMarketplaceError{Name: name}
	}
	if err := ms.save(slices.Delete(list, i, i+1)); err != nil {
		return err
	}
	return os.RemoveAll(ms.dir(name))
}

// classifyMarketplace says what kind of marketplace source s is.
func classifyMarketplace(s string) (MarketplaceRecord, error) {
	if fi, err := os.Stat(s); err == nil {
		abs, _ := filepath.Abs(s)
		if !fi.IsDir() {
			if filepath.Base(abs) != "marketplace.json" {
				return MarketplaceRecord{}, fmt.Errorf("%s is a file, not a marketplace: give the folder that holds %s", s, claude.MarketplaceFile)
			}
			abs = filepath.Dir(filepath.Dir(abs)) // …/.claude-plugin/marketplace.json
		}
		return MarketplaceRecord{Source: abs, Kind: "local"}, nil
	}
	lower := strings.ToLower(s)
	if (strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "http://")) && strings.HasSuffix(strings.SplitN(lower, "?", 2)[0], ".json") {
		return MarketplaceRecord{Source: s, Kind: "url"}, nil
	}
	repo, ref, _ := strings.Cut(s, "@")
	if shorthand.MatchString(repo) && !strings.HasPrefix(ref, "-") {
		return MarketplaceRecord{Source: repo, Kind: "github", Ref: ref}, nil
	}
	if kind, err := Classify(s); err == nil && (kind == SourceGit || kind == SourceGitHub) {
		if owner, name, ok := ownerRepo(s); ok && kind == SourceGitHub {
			return MarketplaceRecord{Source: owner + "/" + name, Kind: "github"}, nil
		}
		return MarketplaceRecord{Source: s, Kind: "git"}, nil
	}
	return MarketplaceRecord{}, fmt.Errorf("%q is not a folder, a git URL, a GitHub owner/repo or a URL of marketplace.json", s)
}

// fetch brings rec's marketplace into a staging folder, reads its catalogue and renames it
// into place under the catalogue's name; then records it.
func (ms *Marketplaces) fetch(ctx context.Context, rec MarketplaceRecord, adding bool) (*MarketplaceRecord, *claude.Marketplace, error) {
	root := ms.Paths.MarketplacesDir()
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, nil, err
	}
	staging, err := stage(root)
	if err != nil {
		return nil, nil, err
	}
	defer dropStaging(staging)
	tree := filepath.Join(staging, "tree")
	f := ms.Fetcher
	switch rec.Kind {
	case "local":
		if _, err := os.Stat(filepath.Join(rec.Source, filepath.FromSlash(claude.MarketplaceFile))); err != nil {
			return nil, nil, fmt.Errorf("%s holds no %s: a marketplace folder needs one", rec.Source, claude.MarketplaceFile)
		}
		err = copyTree(rec.Source, tree, func(rel string) bool { return rel == ".git" })
	case "url":
		file := filepath.Join(tree, filepath.FromSlash(claude.MarketplaceFile))
		if err = os.MkdirAll(filepath.Dir(file), 0o700); err == nil {
			err = f.download(ctx, rec.Source, file)
		}
	case "github":
		err = gitClone(ctx, f.gitEnviron(), "https://github.com/"+rec.Source+".git", rec.Ref, tree)
	case "git":
		err = gitClone(ctx, f.gitEnviron(), rec.Source, rec.Ref, tree)
	default:
		err = fmt.Errorf("marketplace kind %q is unknown", rec.Kind)
	}
	if err != nil {
		return nil, nil, err
	}
	m, err := readCatalogue(tree)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", rec.Source, err)
	}
	list, err := ms.List()
	if err != nil {
		return nil, nil, err
	}
	i := slices.IndexFunc(list, func(r MarketplaceRecord) bool { return r.Name == m.Name })
	switch {
	case adding && i >= 0 && (list[i].Source != rec.Source || list[i].Kind != rec.Kind):
		return nil, nil, &MarketplaceExistsError{Name: m.Name, Source: list[i].Source}
	case !adding && m.Name != rec.Name:
		return nil, nil, fmt.Errorf("%s now names itself %q, not %q: remove it and add it again", rec.Source, m.Name, rec.Name)
	}
	rec.Name, rec.Plugins, rec.Updated = m.Name, len(m.Plugins), time.Now().UTC()
	rec.Commit, _ = gitLocalHead(tree)
	dest := ms.dir(m.Name)
	if _, err := os.Lstat(dest); err == nil {
		if err := exchange(tree, dest); err != nil {
			return nil, nil, fmt.Errorf("cannot replace %s: %w", dest, err)
		}
	} else if err := os.Rename(tree, dest); err != nil {
		return nil, nil, fmt.Errorf("cannot move the marketplace into %s: %w", dest, err)
	}
	if i >= 0 {
		list[i] = rec
	} else {
		list = append(list, rec)
	}
	if err := ms.save(list); err != nil {
		return nil, nil, err
	}
	return &rec, m, nil
}

// Source resolves plugin@market to the source its marketplace names.
func (ms *Marketplaces) Source(plugin, market string) (Source, error) {
	rec, m, err := ms.Open(market)
	if err != nil {
		return nil, err
	}
	p := m.Plugin(plugin)
	if p == nil {
		return nil, &UnknownPluginError{Plugin: plugin, Marketplace: market}
	}
	return &marketplaceSource{ms: ms, rec: rec, plugin: p}, nil
}

// marketplaceSource is a plugin a marketplace lists, fetched from where it says.
type marketplaceSource struct {
	ms     *Marketplaces
	rec    *MarketplaceRecord
	plugin *claude.MarketplacePlugin
}

func (s *marketplaceSource) Fetch(ctx context.Context, staging string, _ Options) (*Fetched, error) {
	src, f := s.plugin.Source, s.ms.Fetcher
	tree := filepath.Join(staging, "tree")
	meta := registry.InstallMetadata{Source: s.plugin.Name + "@" + s.rec.Name, Type: "marketplace"}
	if f.Progress != nil {
		fmt.Fprintf(f.Progress, "fetching %s from marketplace %s: %s…\n", s.plugin.Name, s.rec.Name, src)
	}
	switch src.Kind {
	case "relative":
		if s.rec.Kind == "url" {
			return nil, fmt.Errorf("plugin %q is a folder of marketplace %q's repository, which was added by the URL of its marketplace.json alone: add the marketplace by its repository", s.plugin.Name, s.rec.Name)
		}
		base := s.ms.dir(s.rec.Name)
		dir := filepath.Join(base, filepath.FromSlash(src.Path))
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, fmt.Errorf("plugin %q: %s: %w", s.plugin.Name, src.Path, err)
		}
		baseReal, _ := filepath.EvalSymlinks(base)
		if !pathx.Within(baseReal, real) {
			return nil, fmt.Errorf("plugin %q: %s leads out of the marketplace (a link)", s.plugin.Name, src.Path)
		}
		if err := copyTree(real, tree, func(rel string) bool { return rel == ".git" }); err != nil {
			return nil, err
		}
	case "github":
		if err := gitCheckout(ctx, f.gitEnviron(), "https://github.com/"+src.Repo+".git", src.Ref, src.SHA, tree); err != nil {
			return nil, err
		}
	case "url":
		if err := gitCheckout(ctx, f.gitEnviron(), src.URL, src.Ref, src.SHA, tree); err != nil {
			return nil, err
		}
	case "git-subdir":
		clone := filepath.Join(staging, "clone")
		if err := gitSparse(ctx, f.gitEnviron(), src.URL, src.Ref, src.SHA, src.Path, clone); err != nil {
			return nil, err
		}
		sub, err := subfolder(clone, src.Path)
		if err != nil {
			return nil, fmt.Errorf("plugin %q: folder %s of %s: %w", s.plugin.Name, src.Path, src.URL, err)
		}
		if err := copyTree(sub, tree, nil); err != nil {
			return nil, err
		}
	case "npm":
		dir, err := f.npmPack(ctx, src, staging)
		if err != nil {
			return nil, fmt.Errorf("plugin %q: %w", s.plugin.Name, err)
		}
		tree = dir
	default:
		return nil, fmt.Errorf("plugin %q: source %q is not one gem fetches", s.plugin.Name, src.Kind)
	}
	fetched := &Fetched{Dir: tree, Meta: meta, Version: s.plugin.Version}
	switch src.Kind {
	case "github", "url":
		fetched.Commit = gitHeadOf(tree)
	case "git-subdir":
		fetched.Commit = gitHeadOf(filepath.Join(staging, "clone"))
	}
	return fetched, nil
}

// Newer: the marketplace's current entry is fetched and compared (Update does).
func (s *marketplaceSource) Newer(context.Context, *registry.Extension, registry.InstallMetadata) (bool, string, error) {
	return true, s.plugin.Version, nil
}

// git runs git without a terminal prompt, its output in the error.
func git(ctx context.Context, environ []string, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(slices.Clip(environ), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=true", "SSH_ASKPASS=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(string(out)))
	}
	return nil
}

// gitCheckout clones url at ref into dir; with sha, at that commit, verified.
func gitCheckout(ctx context.Context, environ []string, url, ref, sha, dir string) error {
	if sha == "" {
		return gitClone(ctx, environ, url, ref, dir)
	}
	args := []string{"clone", "--quiet", "--no-checkout"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	if err := git(ctx, environ, append(args, "--", url, dir)...); err != nil {
		return fmt.Errorf("cannot clone %s: %w", url, err)
	}
	return checkoutPinned(ctx, environ, url, sha, dir)
}

// checkoutPinned checks out sha in the clone dir and verifies HEAD is that commit.
func checkoutPinned(ctx context.Context, environ []string, url, sha, dir string) error {
	if err := git(ctx, environ, "-C", dir, "checkout", "--quiet", "--detach", sha, "--"); err != nil {
		return fmt.Errorf("%s has no commit %s (the marketplace pins it): %w", url, sha, err)
	}
	head, err := gitLocalHead(dir)
	if err != nil || !strings.HasPrefix(head, sha) {
		return fmt.Errorf("%s: checked out %s, not the pinned commit %s", url, head, sha)
	}
	return nil
}

// gitSparse clones only the folder sub of url (at ref, or the commit sha): a partial clone
// (no blobs) with a sparse checkout of that folder, so only its files are fetched where the
// server allows filters; git falls back to a whole clone where it does not.
func gitSparse(ctx context.Context, environ []string, url, ref, sha, sub, dir string) error {
	args := []string{"clone", "--quiet", "--filter=blob:none", "--no-checkout", "--sparse"}
	if sha == "" {
		args = append(args, "--depth", "1")
	}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	if err := git(ctx, environ, append(args, "--", url, dir)...); err != nil {
		return fmt.Errorf("cannot clone %s: %w", url, err)
	}
	if err := git(ctx, environ, "-C", dir, "sparse-checkout", "set", "--", sub); err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	if sha != "" {
		return checkoutPinned(ctx, environ, url, sha, dir)
	}
	if err := git(ctx, environ, "-C", dir, "checkout", "--quiet"); err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	return nil
}

// npmPack fetches an npm package's tarball with npm pack (the user's npm configuration,
// proxy and registry credentials apply) and unpacks it; the folder holding its manifest.
func (f *Fetcher) npmPack(ctx context.Context, src claude.PluginSource, staging string) (string, error) {
	if _, err := exec.LookPath("npm"); err != nil {
		return "", errors.New("npm is not installed: install Node.js and npm to install plugins from npm")
	}
	spec := src.Package
	if src.Version != "" {
		spec += "@" + src.Version
	}
	dl := filepath.Join(staging, "npm")
	if err := os.MkdirAll(dl, 0o700); err != nil {
		return "", err
	}
	args := []string{"pack", "--silent", "--ignore-scripts", "--pack-destination", dl}
	if src.Registry != "" {
		if _, err := url.Parse(src.Registry); err != nil {
			return "", fmt.Errorf("registry %q: %w", src.Registry, err)
		}
		args = append(args, "--registry", src.Registry)
	}
	cmd := exec.CommandContext(ctx, "npm", append(args, "--", spec)...)
	cmd.Env, cmd.Dir = f.Environ, dl
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm pack %s: %s", spec, strings.TrimSpace(string(out)))
	}
	tgz, _ := filepath.Glob(filepath.Join(dl, "*.tgz"))
	if len(tgz) != 1 {
		return "", fmt.Errorf("npm pack %s made %d tarballs", spec, len(tgz))
	}
	return f.unpack(tgz[0], filepath.Join(staging, "tree"))
}
