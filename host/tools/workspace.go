package tools

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/paths"
)

// PathError is a path outside the workspace, or one the core tools may not write (protected,
// or reached through a link).
type PathError struct{ path, why string }

func (e *PathError) Error() string {
	if e.why != "" {
		return e.path + " " + e.why
	}
	return fmt.Sprintf("%s is outside the workspace: core tools read and write inside it only", e.path)
}

// writable refuses a write that could widen what programs may do next: a path with a
// protected component at any depth (sandbox.IsProtected: any .git, gem's and Gemini CLI's
// configuration, agents' and editors' settings, context files, .env*, shell rc files — what
// sandboxed programs cannot change either), and a path
// through a symbolic link (which could lead to one of them).
func (c *coreBackend) writable(rel string) error {
	if name, ok := sandbox.ProtectedComponent(rel); ok {
		return &PathError{c.abs(rel), "is protected (" + name + " configures gem, git or another tool): core tools do not write it; change it yourself"}
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		if st, err := c.root.Lstat(prefix); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return &PathError{c.abs(rel), "is reached through the symbolic link " + c.abs(prefix) + ": core tools do not write through links"}
		}
	}
	return nil
}

// rel is p relative to the workspace (p absolute inside it, or relative to it); "" is the
// workspace itself.
func (c *coreBackend) rel(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(c.dir, filepath.Clean(p))
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", &PathError{path: p}
		}
		return r, nil
	}
	r := filepath.Clean(p)
	if r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", &PathError{path: p}
	}
	return r, nil
}

// outputRoot: whether p (absolute) lies in an extension's output folder
// (<GEM_HOME>/data/<extension>/output, GEM_EXTENSION_OUTPUT), which read_file and
// list_directory read, never write, besides the workspace: what extensions' programs keep
// for the model to read later (shell-tools' saved output). It answers that folder as an
// os.Root and p relative to it, so no link or .. leads out of it.
func (c *coreBackend) outputRoot(p string) (root *os.Root, rel string, ok bool, err error) {
	if c.dataDir == "" || !filepath.IsAbs(p) {
		return nil, "", false, nil
	}
	r, err := filepath.Rel(c.dataDir, filepath.Clean(p))
	if err != nil {
		return nil, "", false, nil
	}
	parts := strings.SplitN(filepath.ToSlash(r), "/", 3)
	if len(parts) < 2 || parts[1] != paths.OutputFolder || parts[0] == ".." || parts[0] == "." {
		return nil, "", false, nil
	}
	rel = "."
	if len(parts) == 3 {
		rel = filepath.FromSlash(parts[2])
	}
	ext, err := os.OpenRoot(filepath.Join(c.dataDir, parts[0]))
	if err != nil {
		return nil, "", true, err
	}
	defer ext.Close()
	if st, err := ext.Lstat(paths.OutputFolder); err != nil || !st.IsDir() {
		return nil, "", true, &PathError{p, "is not in a folder gem made for an extension's output"}
	}
	root, err = ext.OpenRoot(paths.OutputFolder)
	return root, rel, true, err
}

// outputError says what an os.Root refusal in an output folder means.
func outputError(p string, err error) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return &PathError{p, "leads out of the extension's output folder (a link or ..): core tools read inside it only"}
	}
	return err
}

// abs is the absolute path of rel in the workspace, as the tools answer with.
func (c *coreBackend) abs(rel string) string { return filepath.Join(c.dir, rel) }

// read reads a workspace file through the workspace's rules; its text is the editor's when
// the editor has the file open (Options.Buffers).
func (c *coreBackend) read(rel string) ([]byte, error) {
	data, err := readIn(c.root, rel, c.abs(rel))
	if err != nil {
		return nil, c.fsError(rel, err)
	}
	if text, ok := c.editorText(rel); ok {
		return []byte(text), nil
	}
	return data, nil
}

// readIn reads rel under root whole (abs names it in errors).
func readIn(root *os.Root, rel, abs string) ([]byte, error) {
	// Without blocking: a FIFO planted under a file's name must not hold the call (and gem)
	// waiting for a writer.
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder: list_directory lists it", abs)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): gem reads only files", abs, st.Mode().Type())
	}
	limit := int64(coreMaxFile)
	if mediaByName(rel) {
		limit = coreMaxMedia // sent as inline data (media.go)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the limit of %d", abs, st.Size(), limit)
	}
	data := make([]byte, st.Size())
	_, err = f.ReadAt(data, 0)
	if err != nil && st.Size() > 0 {
		return nil, err
	}
	return data, nil
}

// fsError says what an os.Root refusal means: a path (or link) that leaves the workspace.
func (c *coreBackend) fsError(rel string, err error) error {
	if err != nil && strings.Contains(err.Error(), "path escapes from parent") {
		return &PathError{path: c.abs(rel)}
	}
	return err
}

// EditTools are the core tools that change the workspace's files, as Gemini CLI's
// checkpointing names them: a checkpoint is taken before one runs (host/checkpoint).
// save_memory writes the user's GEMINI.md, outside the workspace; the shell tool is an
// extension's: neither is checkpointed, as in Gemini CLI.
var EditTools = []string{"write_file", "replace"}

// Launcher is the session's launcher (Options.Launcher), which prepares and starts every
// program of the session: its hooks, skills' tools and `!{…}` shells too.
func (r *Catalog) Launcher() *launch.Launcher { return r.launcher }

// CoreWorkspace is the folder the core file tools work in ("": they are not offered).
func (r *Catalog) CoreWorkspace() string {
	if r.core == nil {
		return ""
	}
	return r.core.dir
}

// EditsWorkspace reports whether the tool the model calls name is a core tool that edits the
// workspace's files (EditTools).
func (r *Catalog) EditsWorkspace(name string) bool {
	t, ok := r.Lookup(name)
	return ok && t.backend == r.core && r.core != nil && slices.Contains(EditTools, t.Declared)
}
