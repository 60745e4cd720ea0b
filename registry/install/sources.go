package install

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gemhost/gem/manifest/version"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/mcpregistry"
	"github.com/gemhost/gem/registry/oci"
)

// SourceKind is how a source is fetched.
type SourceKind string

const (
	SourceLocal   SourceKind = "local"
	SourceArchive SourceKind = "archive"
	SourceGit     SourceKind = "git"
	SourceGitHub  SourceKind = "github"
)

var shorthand = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)
var githubURL = regexp.MustCompile(`^(?:https?://)?(?:www\.)?github\.com/([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+?)(?:\.git)?/?$`)

// Classify says what kind of source s is.
func Classify(s string) (SourceKind, error) {
	if fi, err := os.Stat(s); err == nil {
		if !fi.IsDir() {
			if IsArchive(s) {
				return SourceArchive, nil
			}
			return "", fmt.Errorf("%s is a file but not an archive (.tar.gz, .tgz or .zip); give the extension's folder instead", s)
		}
		return SourceLocal, nil
	}
	lower := strings.ToLower(s)
	isURL := strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "http://")
	switch {
	case isURL && IsArchive(strings.SplitN(lower, "?", 2)[0]):
		return SourceArchive, nil
	case githubURL.MatchString(s) && !strings.HasSuffix(lower, ".git"):
		return SourceGitHub, nil
	case isURL, strings.HasPrefix(lower, "ssh://"), strings.HasPrefix(lower, "git@"), strings.HasPrefix(lower, "file://"), strings.HasSuffix(lower, ".git"):
		return SourceGit, nil
	case shorthand.MatchString(s):
		return SourceGitHub, nil
	}
	return "", fmt.Errorf("%q is not an existing folder, an archive, a git URL or a GitHub owner/repo; check the path or URL", s)
}

// Source is one place an extension comes from: a local folder, an archive (a file or a URL),
// a git repository, a GitHub repository's releases (the next issues add more). Install
// resolves its argument to a Source, update resolves the receipt's install metadata to one
// (Sources); nothing else asks what kind a source is.
type Source interface {
	// Fetch brings the source into the empty folder staging: the folder that holds the
	// manifest, and the install metadata to record (Gemini CLI's format).
	Fetch(ctx context.Context, staging string, opt Options) (*Fetched, error)
	// Newer says whether the source has something newer than x, installed from it with the
	// metadata meta, and its version when that is known without fetching ("": Update fetches
	// and compares the files).
	Newer(ctx context.Context, x *registry.Extension, meta registry.InstallMetadata) (newer bool, version string, err error)
}

// Sources resolves sources: the one switch on what kind a source is.
type Sources interface {
	// Parse resolves an install argument (a path, a URL, owner/repo).
	Parse(arg string, opt Options) (Source, error)
	// Installed resolves the source an installed extension's metadata records.
	Installed(meta registry.InstallMetadata) (Source, error)
}

// Fetched is a source brought into a staging folder.
type Fetched struct {
	Dir  string // the folder that holds the manifest
	Meta registry.InstallMetadata
	// What the lock pins (pin.go): the commit checked out (git), the archive unpacked (a
	// file in staging or the user's) and the URL it came from.
	Commit  string
	Archive string
	Asset   string
	// Version is the version its marketplace entry gives (a plugin of a marketplace), for a
	// manifest that names none (claude.Version).
	Version string
	// Bundles are the Sigstore bundles found for the archive (signing.go), checked before
	// consent.
	Bundles []Bundle
	// Digest is what an OCI reference resolved to (its index's digest).
	Digest string
	digest []byte
	// carried are the payloads the mirror it came from holds (payloads.go).
	carried []carried
}

// Fetcher is gem's Sources: local folders, archives, git and GitHub releases, over HTTP(S)
// and git.
type Fetcher struct {
	HTTP      *http.Client
	GitHubAPI string    // default https://api.github.com (GEM_GITHUB_API_URL)
	Token     string    // GITHUB_TOKEN
	Progress  io.Writer // download progress (a terminal), or nil
	Getenv    func(string) string
	Environ   []string // git's environment (the user's proxy and credentials helpers)
	// Marketplaces resolves plugin@marketplace (nil: no marketplaces).
	Marketplaces *Marketplaces
	// MCPRegistry reads the MCP registry (gem mcp install; nil: none).
	MCPRegistry *mcpregistry.Client
	// OCI reaches OCI registries (oci://…; nil: with the user's Docker and Podman
	// credentials, under Home and read through Getenv).
	OCI  *oci.Client
	Home string
}

func (f *Fetcher) oci() *oci.Client {
	if f.OCI != nil {
		return f.OCI
	}
	return &oci.Client{HTTP: f.HTTP, Home: f.Home, Getenv: f.Getenv}
}

// Parse implements Sources.
func (f *Fetcher) Parse(src string, opt Options) (Source, error) {
	if plugin, market, ok := SplitPluginRef(src); ok && f.Marketplaces != nil {
		if _, err := os.Lstat(src); err != nil { // not a folder of that name
			if opt.Ref != "" {
				return nil, fmt.Errorf("--ref %q: a marketplace's plugin is fetched from where its marketplace says (gem marketplace update fetches the marketplace again)", opt.Ref)
			}
			return f.Marketplaces.Source(plugin, market)
		}
	}
	if oci.IsRef(src) {
		ref, err := oci.ParseRef(src)
		if err != nil {
			return nil, err
		}
		if opt.Ref != "" {
			ref = ref.At(opt.Ref)
		}
		return &ociSource{f: f, ref: ref}, nil
	}
	repo, sub, ref, ok := SplitSubfolder(src)
	ok = ok && !exists(src)
	switch {
	case ok && opt.Path != "" && opt.Path != sub:
		return nil, fmt.Errorf("the source names the subfolder %s and --path says %s: give it once", sub, opt.Path)
	case ok:
		return f.subfolderSource(repo, sub, ref, opt)
	case opt.Path != "":
		return f.subfolderSource(src, opt.Path, "", opt)
	}
	kind, err := Classify(src)
	if err != nil {
		return nil, err
	}
	if opt.Ref != "" && (kind == SourceLocal || (kind == SourceArchive && !strings.Contains(src, "://"))) {
		return nil, &RefOnLocalError{Source: src, Ref: opt.Ref}
	}
	switch kind {
	case SourceLocal:
		abs, err := filepath.Abs(src)
		return &localSource{path: abs}, err
	case SourceArchive:
		if !strings.Contains(src, "://") {
			src, _ = filepath.Abs(src)
		}
		return &archiveSource{f: f, src: src}, nil
	case SourceGit:
		return &gitSource{f: f, url: src}, nil
	default:
		owner, repo, _ := ownerRepo(src)
		return &githubSource{f: f, owner: owner, repo: repo}, nil
	}
}

// Installed implements Sources.
func (f *Fetcher) Installed(meta registry.InstallMetadata) (Source, error) {
	switch meta.Type {
	case "local":
		if IsArchive(meta.Source) {
			return &archiveSource{f: f, src: meta.Source}, nil
		}
		return &localSource{path: meta.Source}, nil
	case "git":
		if repo, sub, _, ok := SplitSubfolder(meta.Source); ok {
			return &subfolderSource{f: f, url: repo, path: sub}, nil
		}
		return &gitSource{f: f, url: meta.Source}, nil
	case "oci":
		ref, err := oci.ParseRef(meta.Source)
		if err != nil {
			return nil, err
		}
		if meta.Ref != "" {
			ref = ref.At(meta.Ref)
		}
		return &ociSource{f: f, ref: ref}, nil
	case "mcp-registry":
		if f.MCPRegistry == nil {
			return nil, &UnknownSourceError{Type: meta.Type, Source: meta.Source}
		}
		return &MCPRegistrySource{Fetcher: f, Client: f.MCPRegistry, Name: meta.Source, Version: meta.Ref}, nil
	case "marketplace":
		plugin, market, ok := SplitPluginRef(meta.Source)
		if !ok || f.Marketplaces == nil {
			return nil, fmt.Errorf("%q is not plugin@marketplace", meta.Source)
		}
		return f.Marketplaces.Source(plugin, market)
	case "github-release":
		owner, repo, ok := ownerRepo(meta.Source)
		if !ok {
			return nil, fmt.Errorf("%q is not a GitHub repository URL", meta.Source)
		}
		return &githubSource{f: f, owner: owner, repo: repo}, nil
	}
	return nil, &UnknownSourceError{Type: meta.Type, Source: meta.Source}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// UnknownSourceError is install metadata of a type gem cannot update from.
type UnknownSourceError struct{ Type, Source string }

func (e *UnknownSourceError) Error() string {
	return fmt.Sprintf("install type %q (source %s) is not one gem can update from", e.Type, e.Source)
}

// localSource is a folder on this machine, copied.
type localSource struct{ path string }

func (s *localSource) Fetch(_ context.Context, staging string, _ Options) (*Fetched, error) {
	tree := filepath.Join(staging, "tree")
	if err := copyTree(s.path, tree, func(rel string) bool { return rel == registry.InstallMetadataFile }); err != nil {
		return nil, fmt.Errorf("copying %s: %w", s.path, err)
	}
	return &Fetched{Dir: tree, Meta: registry.InstallMetadata{Source: s.path, Type: "local"}}, nil
}

func (s *localSource) Newer(_ context.Context, x *registry.Extension, _ registry.InstallMetadata) (bool, string, error) {
	src, err := registry.LoadFolder(s.path)
	if err != nil {
		return false, "", fmt.Errorf("the source of %q: %w", x.Name, err)
	}
	return src.Version != x.Version, src.Version, nil
}

// archiveSource is a .tar.gz, .tgz or .zip, a file or a URL, unpacked.
type archiveSource struct {
	f   *Fetcher
	src string // an absolute path or a URL
}

func (s *archiveSource) Fetch(ctx context.Context, staging string, _ Options) (*Fetched, error) {
	file := s.src
	if strings.Contains(s.src, "://") {
		file = filepath.Join(staging, "download"+archiveExt(s.src))
		if err := s.f.download(ctx, s.src, file); err != nil {
			return nil, err
		}
	}
	dir, err := s.f.unpack(file, filepath.Join(staging, "tree"))
	if err != nil {
		return nil, err
	}
	asset := ""
	if strings.Contains(s.src, "://") {
		asset = s.src
	}
	return &Fetched{Dir: dir, Meta: registry.InstallMetadata{Source: s.src, Type: "local"}, Archive: file, Asset: asset, Bundles: s.f.bundlesBeside(ctx, s.src)}, nil
}

// Newer: an archive says its version once unpacked (Update compares then).
func (s *archiveSource) Newer(context.Context, *registry.Extension, registry.InstallMetadata) (bool, string, error) {
	return true, "", nil
}

// ociSource is an extension pushed to an OCI registry (registry/oci): the layer for this
// platform, unpacked, with the signatures attached to it.
type ociSource struct {
	f   *Fetcher
	ref oci.Ref
}

func (s *ociSource) Fetch(ctx context.Context, staging string, opt Options) (*Fetched, error) {
	ref := s.ref
	if opt.Ref != "" { // a lock's digest, or the tag an update follows
		ref = ref.At(opt.Ref)
	}
	file := filepath.Join(staging, "download.tar.gz")
	p := manifest.HostPlatforms(s.f.Getenv)[0]
	if s.f.Progress != nil {
		fmt.Fprintf(s.f.Progress, "pulling %s…\n", ref)
	}
	pulled, err := s.f.oci().Pull(ctx, ref, manifest.GoOS(p.OS), manifest.GoArch(p.Arch), file)
	if err != nil {
		return nil, err
	}
	dir, err := s.f.unpack(file, filepath.Join(staging, "tree"))
	if err != nil {
		return nil, err
	}
	f := &Fetched{
		Dir: dir, Meta: registry.InstallMetadata{Source: ref.Repository(), Type: "oci", Ref: ref.Reference.Reference},
		Archive: file, Asset: ref.Repository() + "@" + pulled.Manifest, Digest: pulled.Digest,
	}
	for _, b := range pulled.Bundles {
		f.Bundles = append(f.Bundles, Bundle{Data: b, From: "a signature attached to " + f.Asset})
	}
	return f, nil
}

// Newer: the reference's digest is not the one installed, or not known without fetching.
func (s *ociSource) Newer(ctx context.Context, x *registry.Extension, meta registry.InstallMetadata) (bool, string, error) {
	return true, "", nil
}

// gitSource is a git repository, cloned at a ref.
type gitSource struct {
	f   *Fetcher
	url string
}

func (s *gitSource) Fetch(ctx context.Context, staging string, opt Options) (*Fetched, error) {
	tree := filepath.Join(staging, "tree")
	t0 := time.Now()
	if s.f.Progress != nil {
		fmt.Fprintf(s.f.Progress, "cloning %s…\n", WithoutPassword(s.url))
	}
	if err := gitClone(ctx, s.f.gitEnviron(), s.url, opt.Ref, tree); err != nil {
		return nil, err
	}
	if s.f.Progress != nil {
		fmt.Fprintf(s.f.Progress, "cloned %s in %.1fs\n", WithoutPassword(s.url), time.Since(t0).Seconds())
	}
	source := WithoutPassword(s.url)
	if source != s.url { // a token in the URL is used once, never kept in the clone's config
		if err := git(ctx, s.f.gitEnviron(), "-C", tree, "remote", "set-url", "origin", source); err != nil {
			return nil, err
		}
	}
	return &Fetched{Dir: tree, Meta: registry.InstallMetadata{Source: source, Type: "git", Ref: opt.Ref}, Commit: gitHeadOf(tree)}, nil
}

// Newer: the remote head of the recorded ref differs from the checkout's.
func (s *gitSource) Newer(ctx context.Context, x *registry.Extension, meta registry.InstallMetadata) (bool, string, error) {
	remote, err := gitRemoteHead(ctx, s.f.gitEnviron(), s.url, meta.Ref)
	if err != nil {
		return false, "", err
	}
	local, err := gitLocalHead(x.Dir)
	if err != nil {
		return false, "", err
	}
	return !strings.HasPrefix(local, remote) && remote != local, "", nil
}

// githubSource is a GitHub repository: its release for this platform, or its source when it
// has no release.
type githubSource struct {
	f           *Fetcher
	owner, repo string
}

func (s *githubSource) Fetch(ctx context.Context, staging string, opt Options) (*Fetched, error) {
	return s.f.fetchGitHub(ctx, s.owner, s.repo, opt, staging, filepath.Join(staging, "tree"))
}

// Newer: a newer release tag (semver-aware); a source pinned to a tag never is.
func (s *githubSource) Newer(ctx context.Context, _ *registry.Extension, meta registry.InstallMetadata) (bool, string, error) {
	if meta.Ref != "" {
		return false, "", nil
	}
	rel, err := s.f.latestRelease(ctx, s.owner, s.repo, "", meta.AllowPreRelease != nil && *meta.AllowPreRelease)
	if err != nil {
		return false, "", err
	}
	cmp, _ := version.Compare(rel.TagName, meta.ReleaseTag)
	return cmp > 0, strings.TrimPrefix(rel.TagName, "v"), nil
}

func archiveExt(u string) string {
	l := strings.ToLower(strings.SplitN(u, "?", 2)[0])
	for _, e := range []string{".tar.gz", ".tgz", ".zip"} {
		if strings.HasSuffix(l, e) {
			return e
		}
	}
	return ".tar.gz"
}

func (f *Fetcher) unpack(file, tree string) (string, error) {
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return "", err
	}
	t0 := time.Now()
	if f.Progress != nil {
		fmt.Fprintf(f.Progress, "unpacking %s…\n", filepath.Base(file))
	}
	if err := Extract(file, tree, DefaultArchiveLimits); err != nil {
		return "", err
	}
	if f.Progress != nil {
		files, size := treeSize(tree)
		fmt.Fprintf(f.Progress, "unpacked %s: %d files, %.1f MiB in %.1fs\n", filepath.Base(file), files, float64(size)/(1<<20), time.Since(t0).Seconds())
	}
	return extensionRoot(tree)
}

// treeSize counts the regular files under dir and their bytes (for progress).
func treeSize(dir string) (files int, size int64) {
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				files, size = files+1, size+info.Size()
			}
		}
		return nil
	})
	return files, size
}
