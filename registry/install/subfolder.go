package install

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/gemhost/gem/registry"
)

// SplitSubfolder splits a monorepo source, repo//path[@ref] (Terraform's and Go's way of
// naming a folder of a repository): owner/repo//tools/lint@v2 or
// https://host/org/mono.git//exts/a. ok false when src names no subfolder.
func SplitSubfolder(src string) (repo, sub, ref string, ok bool) {
	start := 0
	if i := strings.Index(src, "://"); i >= 0 {
		start = i + 3
	}
	i := strings.Index(src[start:], "//")
	if i < 0 {
		return "", "", "", false
	}
	repo, sub = src[:start+i], src[start+i+2:]
	if at := strings.LastIndex(sub, "@"); at >= 0 {
		sub, ref = sub[:at], sub[at+1:]
	}
	return repo, sub, ref, true
}

// SubfolderError is a subfolder gem will not fetch: not a plain relative path, or absent.
type SubfolderError struct{ Repo, Path, Why string }

func (e *SubfolderError) Error() string {
	return fmt.Sprintf("subfolder %q of %s: %s", e.Path, e.Repo, e.Why)
}

// subfolderSource is one folder of a git repository (a monorepo of extensions), fetched with
// a partial, sparse clone: only that folder's files are downloaded where the server allows
// it (git's --filter=blob:none), and only they are installed (no .git).
type subfolderSource struct {
	f              *Fetcher
	url, path, ref string
}

func (f *Fetcher) subfolderSource(repo, sub, ref string, opt Options) (Source, error) {
	if ref != "" && opt.Ref != "" && ref != opt.Ref {
		return nil, fmt.Errorf("the source says @%s and --ref says %s: give the ref once", ref, opt.Ref)
	}
	clean := path.Clean(strings.Trim(sub, "/"))
	if sub == "" || clean == "." || strings.HasPrefix(clean, "../") || clean == ".." || path.IsAbs(sub) || strings.Contains(sub, `\`) {
		return nil, &SubfolderError{Repo: repo, Path: sub, Why: "not a folder inside the repository (a relative path like tools/lint)"}
	}
	url := repo
	if githubURL.MatchString(repo) || shorthand.MatchString(repo) {
		owner, name, _ := ownerRepo(repo)
		url = "https://github.com/" + owner + "/" + name + ".git"
	} else if kind, err := Classify(repo); err != nil || kind != SourceGit {
		if _, statErr := os.Stat(repo); statErr == nil {
			return nil, fmt.Errorf("%s is a folder: give the subfolder's path instead of %s//%s", repo, repo, sub)
		}
		return nil, fmt.Errorf("%s is not a git URL or a GitHub owner/repo, so it has no subfolders to install", repo)
	}
	return &subfolderSource{f: f, url: url, path: clean, ref: ref}, nil
}

func (s *subfolderSource) Fetch(ctx context.Context, staging string, opt Options) (*Fetched, error) {
	ref := opt.Ref
	if ref == "" {
		ref = s.ref
	}
	clone := filepath.Join(staging, "clone")
	if s.f.Progress != nil {
		fmt.Fprintf(s.f.Progress, "cloning %s (only %s)…\n", WithoutPassword(s.url), s.path)
	}
	if err := gitSparse(ctx, s.f.gitEnviron(), s.url, ref, "", s.path, clone); err != nil {
		if ref == "" {
			return nil, err
		}
		// A commit is no branch or tag: a partial clone of everything, then that commit.
		os.RemoveAll(clone)
		if err2 := gitSparse(ctx, s.f.gitEnviron(), s.url, "", ref, s.path, clone); err2 != nil {
			return nil, err
		}
	}
	sub, err := subfolder(clone, s.path)
	if err != nil {
		return nil, &SubfolderError{Repo: WithoutPassword(s.url), Path: s.path, Why: err.Error()}
	}
	tree := filepath.Join(staging, "tree")
	if err := copyTree(sub, tree, nil); err != nil {
		return nil, err
	}
	return &Fetched{Dir: tree, Meta: registry.InstallMetadata{Source: WithoutPassword(s.url) + "//" + s.path, Type: "git", Ref: ref}, Commit: gitHeadOf(clone)}, nil
}

// Newer: the installed copy keeps no .git, so Update fetches and compares the files.
func (s *subfolderSource) Newer(context.Context, *registry.Extension, registry.InstallMetadata) (bool, string, error) {
	return true, "", nil
}
