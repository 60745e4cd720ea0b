package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
)

// MarketplaceFile is where a Claude Code marketplace's catalogue sits in its repository.
const MarketplaceFile = ".claude-plugin/marketplace.json"

// Marketplace is a Claude Code marketplace catalogue (marketplace.json): its name and the
// plugins it lists, each with where to fetch it from.
type Marketplace struct {
	Name     string              `json:"name"`
	Owner    MarketplaceOwner    `json:"owner"`
	Metadata MarketplaceMetadata `json:"metadata"`
	Plugins  []MarketplacePlugin `json:"plugins"`
}

// MarketplaceOwner is who keeps the marketplace.
type MarketplaceOwner struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
}

// MarketplaceMetadata holds pluginRoot: the folder a bare relative plugin source is under.
type MarketplaceMetadata struct {
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	PluginRoot  string `json:"pluginRoot,omitempty"`
}

// MarketplacePlugin is one plugin the marketplace lists.
type MarketplacePlugin struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	Source      PluginSource
}

// PluginSource is where a marketplace's plugin is fetched from. Kind is one of:
//   - "relative": Path inside the marketplace's own repository ("./plugins/x");
//   - "github": Repo (owner/name) cloned at Ref, checked out at SHA when pinned;
//   - "url": a git URL, likewise;
//   - "git-subdir": the folder Path of the git repository URL (only that folder fetched
//     where the server allows a partial clone);
//   - "npm": Package at Version from Registry (npm's default when empty).
type PluginSource struct {
	Kind     string `json:"source"`
	Path     string `json:"path,omitempty"`
	Repo     string `json:"repo,omitempty"`
	URL      string `json:"url,omitempty"`
	Ref      string `json:"ref,omitempty"`
	SHA      string `json:"sha,omitempty"`
	Package  string `json:"package,omitempty"`
	Version  string `json:"version,omitempty"`
	Registry string `json:"registry,omitempty"`
}

// String says where the source is, as the user reads it.
func (s PluginSource) String() string {
	var where string
	switch s.Kind {
	case "relative":
		return s.Path
	case "github":
		where = "github:" + s.Repo
	case "url":
		where = s.URL
	case "git-subdir":
		where = s.URL + "//" + s.Path
	case "npm":
		where = "npm:" + s.Package
		if s.Version != "" {
			where += "@" + s.Version
		}
		return where
	}
	if s.Ref != "" {
		where += "@" + s.Ref
	}
	if s.SHA != "" {
		where += " (sha " + s.SHA + ")"
	}
	return where
}

// The marketplace's patterns are compiled on first use: the light front links this package
// (discovery reads plugins) and must not pay for them at every start.
var (
	marketName = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	repoName   = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)
	shaPin     = lazyRegexp(`^[0-9a-f]{7,64}$`)
	npmName    = lazyRegexp(`^(@[a-z0-9~][a-z0-9._~-]*/)?[a-z0-9~][a-z0-9._~-]*$`)
	npmVersion = lazyRegexp(`^[A-Za-z0-9.^~<>=*+-][A-Za-z0-9.^~<>=*+ |-]*$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// MarketplaceError is a marketplace.json that gem cannot use: Field names the field.
type MarketplaceError struct {
	Field, Problem string
}

func (e *MarketplaceError) Error() string {
	if e.Field == "" {
		return MarketplaceFile + ": " + e.Problem
	}
	return MarketplaceFile + ": " + e.Field + ": " + e.Problem
}

// ParseMarketplace reads a marketplace.json. Every plugin's source is checked: a relative
// path stays inside the marketplace's repository (no "..", not absolute), a github repo is
// owner/name, a sha is hexadecimal, a URL is https, http, ssh, git@ or file.
func ParseMarketplace(data []byte) (*Marketplace, error) {
	var raw struct {
		Name     string              `json:"name"`
		Owner    MarketplaceOwner    `json:"owner"`
		Metadata MarketplaceMetadata `json:"metadata"`
		Plugins  []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Version     string          `json:"version"`
			Source      json.RawMessage `json:"source"`
		} `json:"plugins"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, &MarketplaceError{Problem: "not JSON of a marketplace: " + err.Error()}
	}
	m := &Marketplace{Name: raw.Name, Owner: raw.Owner, Metadata: raw.Metadata}
	if !marketName().MatchString(m.Name) {
		return nil, &MarketplaceError{Field: "name", Problem: fmt.Sprintf("%q: use letters, digits, '.', '_' and '-' (it names the marketplace in plugin@marketplace)", m.Name)}
	}
	root := strings.TrimPrefix(path.Clean("/"+m.Metadata.PluginRoot), "/")
	if strings.HasPrefix(m.Metadata.PluginRoot, "/") || strings.Contains(m.Metadata.PluginRoot, "..") {
		return nil, &MarketplaceError{Field: "metadata.pluginRoot", Problem: fmt.Sprintf("%q: name a folder inside the marketplace", m.Metadata.PluginRoot)}
	}
	seen := map[string]bool{}
	for i, p := range raw.Plugins {
		field := fmt.Sprintf("plugins[%d]", i)
		if !marketName().MatchString(p.Name) {
			return nil, &MarketplaceError{Field: field + ".name", Problem: fmt.Sprintf("%q: use letters, digits, '.', '_' and '-'", p.Name)}
		}
		if seen[p.Name] {
			return nil, &MarketplaceError{Field: field + ".name", Problem: fmt.Sprintf("%q is listed twice", p.Name)}
		}
		seen[p.Name] = true
		src, err := pluginSource(p.Source, root)
		if err != nil {
			return nil, &MarketplaceError{Field: field + ".source", Problem: err.Error()}
		}
		m.Plugins = append(m.Plugins, MarketplacePlugin{Name: p.Name, Description: p.Description, Version: p.Version, Source: src})
	}
	return m, nil
}

// Plugin is the plugin named name, or nil.
func (m *Marketplace) Plugin(name string) *MarketplacePlugin {
	for i := range m.Plugins {
		if m.Plugins[i].Name == name {
			return &m.Plugins[i]
		}
	}
	return nil
}

// pluginSource reads one plugin's source: a string (a relative path) or an object.
func pluginSource(raw json.RawMessage, root string) (PluginSource, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return PluginSource{}, errors.New("missing: give a relative path or an object with \"source\"")
	}
	if raw[0] == '"' {
		var p string
		json.Unmarshal(raw, &p)
		rel, err := insidePath(p)
		if err != nil {
			return PluginSource{}, err
		}
		if !strings.HasPrefix(p, "./") && root != "" {
			rel = path.Join(root, rel)
		}
		return PluginSource{Kind: "relative", Path: rel}, nil
	}
	var s PluginSource
	if err := json.Unmarshal(raw, &s); err != nil {
		return PluginSource{}, fmt.Errorf("not a path or a source object: %w", err)
	}
	if s.SHA != "" && !shaPin().MatchString(s.SHA) {
		return s, fmt.Errorf("sha %q: give a commit's hexadecimal id (7 to 64 characters)", s.SHA)
	}
	if strings.HasPrefix(s.Ref, "-") {
		return s, fmt.Errorf("ref %q: a branch or tag does not start with '-'", s.Ref)
	}
	switch s.Kind {
	case "github":
		if !repoName().MatchString(s.Repo) {
			return s, fmt.Errorf("repo %q: give owner/name", s.Repo)
		}
	case "url", "git-subdir":
		if err := gitURL(s.URL); err != nil {
			return s, err
		}
		if s.Kind == "git-subdir" {
			rel, err := insidePath(s.Path)
			if err != nil || rel == "." {
				return s, fmt.Errorf("path %q: name a folder inside the repository", s.Path)
			}
			s.Path = rel
		}
	case "npm":
		if len(s.Package) > 214 || !npmName().MatchString(s.Package) {
			return s, fmt.Errorf("package %q: give an npm package name", s.Package)
		}
		if s.Version != "" && (strings.HasPrefix(s.Version, "-") || !npmVersion().MatchString(s.Version)) {
			return s, fmt.Errorf("version %q: give an npm version", s.Version)
		}
		if s.Registry != "" && !strings.HasPrefix(s.Registry, "https://") && !strings.HasPrefix(s.Registry, "http://") {
			return s, fmt.Errorf("registry %q: give an http(s) URL", s.Registry)
		}
	case "":
		return s, errors.New(`an object needs "source": github, url, git-subdir or npm`)
	default:
		return s, fmt.Errorf("source %q: gem fetches github, url, git-subdir, npm and relative paths", s.Kind)
	}
	return s, nil
}

// insidePath is p cleaned, when it stays inside the folder it is relative to.
func insidePath(p string) (string, error) {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, `\`) {
		return "", fmt.Errorf("path %q: give a path relative to the marketplace, such as ./plugins/name", p)
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("path %q leads out of the marketplace", p)
	}
	return clean, nil
}

func gitURL(u string) error {
	lower := strings.ToLower(u)
	for _, p := range []string{"https://", "http://", "ssh://", "git@", "file://"} {
		if strings.HasPrefix(lower, p) {
			return nil
		}
	}
	return fmt.Errorf("url %q: give an https, ssh or file git URL", u)
}
