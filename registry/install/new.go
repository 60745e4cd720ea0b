package install

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"
)

//go:embed templates
var templates embed.FS

// Templates lists the templates `gem ext new` knows, with what each makes.
var Templates = map[string]string{
	"command": "an executable slash command in Go (make builds it into bin/<platform>/<arch>/)",
	"context": "a context file only (GEMINI.md)",
	"mcp":     "an MCP server in Go with the official SDK (make builds bin/<name>)",
}

var extName = regexp.MustCompile(`^[A-Za-z0-9-]+$`)

// New creates an extension in dir from a template. The extension is named after the
// folder; it returns the files written.
func New(dir, tmpl string) ([]string, error) {
	if tmpl == "" {
		tmpl = "context"
	}
	if _, ok := Templates[tmpl]; !ok {
		var names []string
		for n := range Templates {
			names = append(names, n)
		}
		slices.Sort(names)
		if tmpl == "plugin" {
			return nil, fmt.Errorf("template %q is not available in this version of gem yet; choose one of %s", tmpl, strings.Join(names, ", "))
		}
		return nil, fmt.Errorf("unknown template %q: choose one of %s", tmpl, strings.Join(names, ", "))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(abs)
	if !extName.MatchString(name) {
		return nil, fmt.Errorf("the folder name %q is the extension's name and must hold only letters, digits and dashes: pick another folder name", name)
	}
	if entries, err := os.ReadDir(abs); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty: gem ext new creates a new extension in an empty or new folder", abs)
	}
	root := path.Join("templates", tmpl)
	var written []string
	err = fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		t, err := template.New(p).Parse(string(data))
		if err != nil {
			return err
		}
		var out bytes.Buffer
		if err := t.Execute(&out, map[string]string{"Name": name}); err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ".tmpl")
		target := filepath.Join(abs, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, out.Bytes(), 0o644); err != nil {
			return err
		}
		written = append(written, rel)
		return nil
	})
	return written, err
}
