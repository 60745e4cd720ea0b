package agent

import (
	"os"

	"path/filepath"
	"regexp"
	"strings"

	"github.com/gemhost/gem/host/tools"
)

// atPath is an @path reference in a prompt, as Gemini CLI reads one: @ at the start or
// after white space, then a path (a backslash escapes a space in it).
var atPath = regexp.MustCompile(`(^|\s)@((?:\\ |[^\s])+)`)

// ExpandAtPaths adds the files a prompt names with @path (inside the project; a folder gives
// its files, not recursively, hidden ones and those .gitignore or .geminiignore ignore left
// out) after the prompt, under Gemini CLI's
// "--- Content from referenced files ---" marker. A reference that is not a file of the
// project stays as typed (an e-mail address, a path outside it), with an error saying why
// when it looked like a path.
func (e Expander) ExpandAtPaths(prompt string) (string, []error) {
	var parts []string
	var errs []error
	seen := map[string]bool{}
	for _, m := range atPath.FindAllStringSubmatch(prompt, -1) {
		ref := strings.ReplaceAll(m[2], `\ `, " ")
		ref = strings.TrimRight(ref, ".,;:!?)")
		if seen[ref] || ref == "" {
			continue
		}
		seen[ref] = true
		for _, file := range e.atFiles(ref) {
			text, err := e.readFile(file)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			parts = append(parts, text)
		}
	}
	if len(parts) == 0 {
		return prompt, errs
	}
	return prompt + "\n--- Content from referenced files ---\n" + strings.Join(parts, "\n") + "\n--- End of content ---", errs
}

// atFiles are the files ref names: itself, or a folder's files; none when it is not in the
// project.
func (e Expander) atFiles(ref string) []string {
	path := ref
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.Root, path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		return []string{ref}
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	var ignore *tools.Ignorer
	if root, err := os.OpenRoot(e.Root); err == nil {
		defer root.Close()
		ignore = tools.NewIgnorer(root.FS())
	}
	var out []string
	for _, en := range entries {
		if !en.Type().IsRegular() || strings.HasPrefix(en.Name(), ".") || len(out) >= 50 {
			continue
		}
		if rel, err := filepath.Rel(e.Root, filepath.Join(path, en.Name())); ignore != nil && err == nil && ignore.Ignored(filepath.ToSlash(rel), false) {
			continue
		}
		out = append(out, filepath.Join(ref, en.Name()))
	}
	return out
}
