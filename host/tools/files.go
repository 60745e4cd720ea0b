package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Files are the workspace's files as the core tools reach them, for code that runs in gem's
// process on the model's behalf (the SDK's SessionContext.FS): a path is inside the
// workspace (absolute, or relative to it) and reached without leaving it (no .. and no link
// out); a write is refused under a protected name (.git, agents' and editors' configuration,
// .env…) or through a link, written whole or not at all; and every operation is decided by
// the policy as the core tool doing it would be (read_file, write_file, list_directory,
// glob: a write is asked about with its diff in default mode, refused in plan mode) and
// audited.
type Files struct {
	r *Catalog
	c *coreBackend
}

// ErrNoCoreTools: the catalog was opened without gem's core tools.
var ErrNoCoreTools = errors.New("the catalog has no core tools (and so no workspace files)")

// Files are the catalog's workspace files.
func (r *Catalog) Files() (*Files, error) {
	if r.core == nil {
		return nil, ErrNoCoreTools
	}
	return &Files{r: r, c: r.core}, nil
}

// Dir is the workspace.
func (f *Files) Dir() string { return f.c.dir }

// authorize decides the operation as a call of the core tool name with args.
func (f *Files) authorize(ctx context.Context, name string, kind Kind, args any, opts CallOptions) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	t := &Tool{Name: name, Declared: name, base: name, Extension: "gem", Spec: Spec{Name: name, Kind: kind}, backend: f.c}
	return f.r.authorize(ctx, t, raw, opts)
}

// Read is the content of the file at path.
func (f *Files) Read(ctx context.Context, path string, opts CallOptions) ([]byte, error) {
	rel, err := f.c.rel(path)
	if err != nil {
		return nil, err
	}
	if err := f.authorize(ctx, "read_file", KindRead, readFileArgs{FilePath: f.c.abs(rel)}, opts); err != nil {
		return nil, err
	}
	return f.c.read(rel)
}

// Write replaces (or creates) the file at path with data, making missing folders.
func (f *Files) Write(ctx context.Context, path string, data []byte, opts CallOptions) error {
	rel, err := f.c.rel(path)
	if err != nil {
		return err
	}
	if err := f.c.writable(rel); err != nil {
		return err
	}
	if err := f.authorize(ctx, "write_file", KindEdit, writeFileArgs{FilePath: f.c.abs(rel), Content: string(data)}, opts); err != nil {
		return err
	}
	return f.c.writeAtomic(rel, data)
}

// List is the folder at path: its entries, by name.
func (f *Files) List(ctx context.Context, path string, opts CallOptions) ([]fs.DirEntry, error) {
	rel, err := f.c.rel(path)
	if err != nil {
		return nil, err
	}
	if err := f.authorize(ctx, "list_directory", KindRead, listDirArgs{DirPath: f.c.abs(rel)}, opts); err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(f.c.root.FS(), filepath.ToSlash(rel))
	return entries, f.c.fsError(rel, err)
}

// Glob are the absolute paths of the workspace's files whose path (relative to it) matches
// pattern (** for any depth); .git is left out, and what .gitignore and .geminiignore
// ignore.
func (f *Files) Glob(ctx context.Context, pattern string, opts CallOptions) ([]string, error) {
	if filepath.IsAbs(pattern) {
		rel, err := f.c.rel(pattern)
		if err != nil {
			return nil, err
		}
		pattern = rel
	}
	if p := filepath.Clean(pattern); p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)) {
		return nil, &PathError{path: pattern}
	}
	if err := f.authorize(ctx, "glob", KindSearch, globArgs{Pattern: pattern}, opts); err != nil {
		return nil, err
	}
	rels, err := f.c.globRel(pattern, true, true)
	if err != nil {
		return nil, fmt.Errorf("glob %s: %w", pattern, err)
	}
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = f.c.abs(r)
	}
	return out, nil
}
