package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/manifest"
)

// CheckFolder checks what only the folder can tell: context files that leave the folder
// (through symlinks too) or are missing, and command and plugin binaries that are missing
// for this platform, leave the folder or cannot be executed. Problems carry JSON paths like
// manifest.Problems do.
func (x *Extension) CheckFolder(env Env) manifest.Problems {
	var ps manifest.Problems
	m := x.Manifest()
	root, err := filepath.EvalSymlinks(x.Path)
	if err != nil {
		return manifest.Problems{{Severity: manifest.Error, Path: "", Value: x.Path, Want: "the extension folder cannot be read: " + err.Error()}}
	}
	type contextFile struct{ field, name string }
	var contexts []contextFile
	for i, name := range m.ContextFileName {
		field := "contextFileName"
		if len(m.ContextFileName) > 1 {
			field += "[" + strconv.Itoa(i) + "]"
		}
		contexts = append(contexts, contextFile{field, name})
	}
	for _, c := range m.Commands {
		if c.Context != "" {
			contexts = append(contexts, contextFile{"commands." + c.Name + ".context", c.Context})
		}
	}
	for _, p := range m.Plugins {
		if p.Context != "" {
			contexts = append(contexts, contextFile{"plugins." + p.ID + ".context", p.Context})
		}
	}
	for _, c := range contexts {
		field, name := c.field, c.name
		path := filepath.Join(x.Path, name)
		if filepath.IsAbs(name) {
			path = filepath.Clean(name)
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			ps = append(ps, manifest.Problem{Severity: manifest.Warning, Path: field, Value: strconv.Quote(name),
				Want: "context file " + strconv.Quote(name) + " not found; it will be skipped: create it or remove it from " + field})
			continue
		}
		if !pathx.Within(root, real) {
			ps = append(ps, manifest.Problem{Severity: manifest.Error, Path: field, Value: strconv.Quote(name),
				Want: "resolves to " + real + ", outside the extension folder; context files must live inside it"})
		}
	}
	check := func(kind, name, field, template string) {
		if template == "" {
			return
		}
		_, err := x.ResolveBinary(env, kind, name, template)
		if err == nil {
			return
		}
		var be *BinaryError
		want := err.Error()
		if errors.As(err, &be) && errors.Is(err, ErrBinaryNotFound) {
			want = "no file for this platform at " + be.Path + "; build the binary there before installing"
		}
		ps = append(ps, manifest.Problem{Severity: manifest.Error, Path: field, Value: strconv.Quote(template), Want: want})
	}
	for _, c := range m.Commands {
		check("command", c.Name, "commands."+c.Name+".binary", c.Binary)
	}
	for _, p := range m.Plugins {
		check("plugin", p.ID, "plugins."+p.ID+".binary", p.Binary)
	}
	return ps
}

// LoadFolder reads the extension in dir as discovery would (for validate and install):
// install metadata, manifest (a syntax error is returned as an error naming the file).
func LoadFolder(dir string) (*Extension, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("%s does not exist: check the path", abs)
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, errors.New(abs + " is not a folder: give the folder that holds " + manifest.FileName)
	}
	x := &Extension{Dir: abs, Path: abs, Level: LevelUser}
	var data []byte
	for _, f := range Formats { // the first format whose manifest the folder holds
		x.Format, x.ManifestPath = f, filepath.Join(abs, filepath.FromSlash(f.ManifestFile))
		if data, err = os.ReadFile(x.ManifestPath); !os.IsNotExist(err) {
			break
		}
	}
	if err != nil {
		if os.IsNotExist(err) {
			return nil, errors.New("no " + manifest.FileName + " (nor " + otherManifests() + ") in " + abs + ": an extension folder needs one")
		}
		return nil, err
	}
	if err := x.setHead(data, filepath.Base(abs)); err != nil {
		return nil, errors.New("invalid JSON in " + x.ManifestPath + ": " + err.Error())
	}
	meta, _ := ReadInstallMetadata(abs)
	x.recordedVersion(meta)
	return x, nil
}

// otherManifests names the manifests of the formats besides gem's own.
func otherManifests() string {
	var names []string
	for i, f := range Formats[1:] {
		if i+1 < len(Formats)-1 && Formats[i+2].ID == f.ID { // one format, read from two places
			names = append(names, f.ManifestFile+" or")
			continue
		}
		names = append(names, f.ManifestFile+" of "+article(f.Name))
	}
	return strings.ReplaceAll(strings.Join(names, ", "), " or, ", " or ")
}
