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

	"github.com/gemhost/gem/pluginsdk"
)

//go:embed templates
var templates embed.FS

// Templates lists the templates `gem ext new` knows, with what each makes.
var Templates = map[string]string{
	"command": "an executable slash command in Go (make builds it into bin/<platform>/<arch>/)",
	"context": "a context file only (GEMINI.md)",
	"mcp":     "an MCP server in Go with the official SDK (make builds bin/<name>)",
	"plugin":  "a go-plugin tool plugin in Go with pluginsdk (make builds bin/<platform>/<arch>/)",

	"custom-commands": "prompt commands (commands/*.toml), as Gemini CLI's template",
	"exclude-tools":   "a manifest that hides tools from the model, as Gemini CLI's template",
}

// TemplateAliases are Gemini CLI's template names for gem's own.
var TemplateAliases = map[string]string{"mcp-server": "mcp"}

var extName = regexp.MustCompile(`^[A-Za-z0-9-]+$`)

// New creates an extension in dir from a template. The extension is named after the
// folder; it returns the files written.
func New(dir, tmpl string) ([]string, error) {
	if tmpl == "" {
		tmpl = "context"
	}
	if own, ok := TemplateAliases[tmpl]; ok {
		tmpl = own
	}
	if _, ok := Templates[tmpl]; !ok {
		var names []string
		for n := range Templates {
			names = append(names, n)
		}
		slices.Sort(names)
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
		return nil, fmt.Errorf("%s is not empty: a new extension is made in an empty or new folder", abs)
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
	if err != nil || tmpl != "plugin" {
		return written, err
	}
	more, err := vendorSDK(abs, name)
	return append(written, more...), err
}

// vendorSDK copies pluginsdk's source into dir/third_party/pluginsdk and writes a go.mod
// and go.sum that use it, so the plugin builds with no module gem has not published.
func vendorSDK(dir, name string) ([]string, error) {
	var written []string
	err := fs.WalkDir(pluginsdk.Source, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := pluginsdk.Source.ReadFile(p)
		if err != nil {
			return err
		}
		target := filepath.Join(dir, "third_party", "pluginsdk", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		written = append(written, path.Join("third_party/pluginsdk", p))
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		return nil, err
	}
	sdkMod, _ := pluginsdk.Source.ReadFile("go.mod")
	sdkSum, _ := pluginsdk.Source.ReadFile("go.sum")
	requires := string(sdkMod)
	if i := strings.Index(requires, "require"); i >= 0 {
		requires = requires[i:]
	} else {
		requires = ""
	}
	goLine := "go 1.26.0"
	for _, l := range strings.Split(string(sdkMod), "\n") {
		if strings.HasPrefix(l, "go ") {
			goLine = l
		}
	}
	mod := "module " + name + "\n\n" + goLine + "\n\nrequire github.com/gemhost/gem/pluginsdk v0.0.0\n\n" + requires +
		"\n// pluginsdk is copied here until it is published; drop this line and the folder then.\nreplace github.com/gemhost/gem/pluginsdk => ./third_party/pluginsdk\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sdkSum, 0o644); err != nil {
		return nil, err
	}
	return append(written, "go.mod", "go.sum"), nil
}
