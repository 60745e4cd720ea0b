package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// release is the part of GitHub's release JSON gem reads.
type release struct {
	TagName    string `json:"tag_name"`
	Prerelease bool   `json:"prerelease"`
	Draft      bool   `json:"draft"`
	TarballURL string `json:"tarball_url"`
	Assets     []struct {
		Name string `json:"name"`
		URL  string `json:"browser_download_url"`
	} `json:"assets"`
}

// ownerRepo parses owner/repo from a GitHub URL or shorthand.
func ownerRepo(src string) (string, string, bool) {
	if m := githubURL.FindStringSubmatch(src); m != nil {
		return m[1], strings.TrimSuffix(m[2], ".git"), true
	}
	if shorthand.MatchString(src) {
		o, r, _ := strings.Cut(src, "/")
		return o, r, true
	}
	return "", "", false
}

func (f *Fetcher) apiBase() string {
	if f.GitHubAPI != "" {
		return strings.TrimSuffix(f.GitHubAPI, "/")
	}
	return "https://api.github.com"
}

// latestRelease returns the release for ref (a tag), or the newest one (pre-releases only
// when allowed). errNoRelease when the repository has none.
func (f *Fetcher) latestRelease(ctx context.Context, owner, repo, ref string, pre bool) (*release, error) {
	base := f.apiBase() + "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(repo)
	switch {
	case ref != "":
		var r release
		return &r, f.getJSON(ctx, base+"/releases/tags/"+url.PathEscape(ref), &r)
	case pre:
		var rs []release
		if err := f.getJSON(ctx, base+"/releases?per_page=30", &rs); err != nil {
			return nil, err
		}
		for i := range rs {
			if !rs[i].Draft {
				return &rs[i], nil
			}
		}
		return nil, errNoRelease
	default:
		var r release
		return &r, f.getJSON(ctx, base+"/releases/latest", &r)
	}
}

var errNoRelease = errors.New("no release")

func (f *Fetcher) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	f.authorize(req)
	resp, err := f.client().Do(req)
	if err != nil {
		return fmt.Errorf("GitHub API: %w", unreachable(req.URL, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return errNoRelease
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		hint := ""
		if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized {
			hint = " (rate limited or private: set GITHUB_TOKEN)"
		}
		return fmt.Errorf("GitHub API %s: %s%s: %s", u, resp.Status, hint, strings.TrimSpace(string(body)))
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func (f *Fetcher) client() *http.Client {
	if f.HTTP != nil {
		return f.HTTP
	}
	return &http.Client{Timeout: 10 * time.Minute}
}

// authorize sends GITHUB_TOKEN only to the GitHub API host and GitHub's download hosts.
func (f *Fetcher) authorize(req *http.Request) {
	if f.Token == "" {
		return
	}
	api, _ := url.Parse(f.apiBase())
	h := req.URL.Hostname()
	if (api != nil && h == api.Hostname()) || h == "github.com" || strings.HasSuffix(h, ".githubusercontent.com") {
		req.Header.Set("Authorization", "Bearer "+f.Token)
	}
}

// pickAsset applies Gemini CLI's rule with Node's platform names.
func pickAsset(r *release, p manifest.Platform) (name, u string) {
	prefixes := []string{strings.ToLower(p.OS + "." + p.Arch + "."), strings.ToLower(p.OS + ".")}
	for _, prefix := range prefixes {
		for _, a := range r.Assets {
			if strings.HasPrefix(strings.ToLower(a.Name), prefix) {
				return a.Name, a.URL
			}
		}
	}
	if len(r.Assets) == 1 {
		n := strings.ToLower(r.Assets[0].Name)
		named := false
		for _, os := range []string{"linux", "darwin", "win32", "windows"} {
			if strings.HasPrefix(n, os+".") {
				named = true
			}
		}
		if !named {
			return r.Assets[0].Name, r.Assets[0].URL
		}
	}
	return "", ""
}

func (f *Fetcher) fetchGitHub(ctx context.Context, owner, repo string, opt Options, staging, tree string) (*Fetched, error) {
	canonical := "https://github.com/" + owner + "/" + repo
	rel, err := f.latestRelease(ctx, owner, repo, opt.Ref, opt.PreRelease)
	if errors.Is(err, errNoRelease) {
		gitURL := canonical + ".git"
		if err := gitClone(ctx, f.gitEnviron(), gitURL, opt.Ref, tree); err != nil {
			return nil, fmt.Errorf("%s has no release and cloning failed: %w", canonical, err)
		}
		return &Fetched{Dir: tree, Meta: registry.InstallMetadata{Source: canonical, Type: "git", Ref: opt.Ref}, Commit: gitHeadOf(tree)}, nil
	}
	if err != nil {
		return nil, err
	}
	platforms := manifest.HostPlatforms(f.Getenv)
	name, u := pickAsset(rel, platforms[0])
	if u == "" {
		name, u = repo+"-"+rel.TagName+".tar.gz", rel.TarballURL
	}
	if u == "" {
		return nil, fmt.Errorf("release %s of %s has no asset for %s/%s and no source tarball", rel.TagName, canonical, platforms[0].OS, platforms[0].Arch)
	}
	file := filepath.Join(staging, "download"+archiveExt(name))
	if err := f.download(ctx, u, file); err != nil {
		return nil, err
	}
	dir, err := f.unpack(file, tree)
	if err != nil {
		return nil, err
	}
	meta := registry.InstallMetadata{Source: canonical, Type: "github-release", ReleaseTag: rel.TagName}
	if opt.Ref != "" {
		meta.Ref = opt.Ref
	}
	fetched := &Fetched{Dir: dir, Meta: meta, Archive: file, Asset: u}
	if u != rel.TarballURL { // GitHub makes the source tarball: nobody signed its bytes
		fetched.Bundles = f.releaseBundles(ctx, owner, repo, rel, name, fetched)
	}
	return fetched, nil
}
