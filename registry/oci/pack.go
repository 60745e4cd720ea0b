package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// Layer is one platform's archive of an extension (Platform nil: every platform's): a
// tar+gzip, or a zip when Zip (an archive pushed as it was published).
type Layer struct {
	Platform *ocispec.Platform
	Archive  []byte
	Zip      bool
}

// Pack archives the extension in dir, one layer per platform it ships binaries for (the
// files its manifest's ${platform}/${arch} binary paths name), or one layer when it ships
// none.
func Pack(dir string) (*registry.Extension, []Layer, error) {
	x, err := registry.LoadFolder(dir)
	if err != nil {
		return nil, nil, err
	}
	files, err := listFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	// Which files belong to which platform: those matching a binary path, by its values.
	owner := map[string]string{} // rel → "os/arch" (Node's names)
	platforms := map[string]bool{}
	for _, re := range binaryPatterns(x.Manifest()) {
		for _, f := range files {
			if m := re.FindStringSubmatch(f.rel); m != nil {
				p := m[re.SubexpIndex("os")] + "/" + m[re.SubexpIndex("arch")]
				owner[f.rel] = p
				platforms[p] = true
			}
		}
	}
	if len(platforms) == 0 {
		data, err := tarGz(dir, files, func(string) bool { return true })
		return x, []Layer{{Archive: data}}, err
	}
	names := make([]string, 0, len(platforms))
	for p := range platforms {
		names = append(names, p)
	}
	sort.Strings(names)
	var layers []Layer
	for _, p := range names {
		data, err := tarGz(dir, files, func(rel string) bool { o, ok := owner[rel]; return !ok || o == p })
		if err != nil {
			return nil, nil, err
		}
		os, arch, _ := strings.Cut(p, "/")
		layers = append(layers, Layer{Platform: &ocispec.Platform{OS: manifest.GoOS(os), Architecture: manifest.GoArch(arch)}, Archive: data})
	}
	return x, layers, nil
}

// binaryPatterns are the manifest's binary paths with ${platform} and ${arch} as named
// groups, relative to the extension's folder.
func binaryPatterns(m *manifest.Manifest) []*regexp.Regexp {
	var paths []string
	for _, c := range m.Commands {
		paths = append(paths, c.Binary)
	}
	for _, p := range m.Plugins {
		paths = append(paths, p.Binary)
	}
	var out []*regexp.Regexp
	for _, p := range paths {
		if !strings.Contains(p, "${platform}") || !strings.Contains(p, "${arch}") {
			continue
		}
		for _, sep := range []string{"${/}", "${pathSeparator}"} {
			p = strings.ReplaceAll(p, sep, "/")
		}
		p = strings.TrimPrefix(strings.TrimPrefix(p, "${extensionPath}"), "/")
		q := regexp.QuoteMeta(p)
		q = strings.Replace(q, regexp.QuoteMeta("${platform}"), "(?P<os>[^/]+)", 1)
		q = strings.Replace(q, regexp.QuoteMeta("${arch}"), "(?P<arch>[^/]+)", 1)
		q = strings.ReplaceAll(q, regexp.QuoteMeta("${platform}"), "[^/]+")
		q = strings.ReplaceAll(q, regexp.QuoteMeta("${arch}"), "[^/]+")
		if re, err := regexp.Compile("^" + q + "(\\.exe)?$"); err == nil {
			out = append(out, re)
		}
	}
	return out
}

type file struct {
	rel  string // slash path
	mode fs.FileMode
	link string
}

// listFiles lists dir's folders, files and links, sorted, without .git folders and gem's
// install metadata; a link leading out of dir, or anything else, is refused.
func listFiles(dir string) ([]file, error) {
	var out []file
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case rel == registry.InstallMetadataFile:
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		f := file{rel: rel, mode: info.Mode()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			resolved := filepath.Join(filepath.Dir(p), target)
			if filepath.IsAbs(target) || !strings.HasPrefix(resolved+string(filepath.Separator), filepath.Clean(dir)+string(filepath.Separator)) {
				return fmt.Errorf("%s is a link leading out of the extension (%s): it cannot be pushed", rel, target)
			}
			f.link = filepath.ToSlash(target)
		case !info.Mode().IsRegular() && !info.IsDir():
			return fmt.Errorf("%s is not a file, folder or link: it cannot be pushed", rel)
		}
		out = append(out, f)
		return nil
	})
	return out, err
}

// tarGz is a reproducible tar+gzip of the files keep keeps (writeTar).
func tarGz(dir string, files []file, keep func(rel string) bool) ([]byte, error) {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err := writeTar(gz, dir, files, keep); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeTar writes a reproducible tar of the files keep keeps (folders always): sorted, times
// zeroed, no owners, permissions kept as 0755 or 0644.
func writeTar(w io.Writer, dir string, files []file, keep func(rel string) bool) error {
	tw := tar.NewWriter(w)
	epoch := time.Unix(0, 0).UTC()
	for _, f := range files {
		if !f.mode.IsDir() && !keep(f.rel) {
			continue
		}
		h := &tar.Header{Name: f.rel, ModTime: epoch, Format: tar.FormatPAX, Mode: 0o644}
		switch {
		case f.mode.IsDir():
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, f.rel+"/", 0o755
		case f.link != "":
			h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, f.link, 0o777
		default:
			h.Typeflag = tar.TypeReg
			if f.mode&0o111 != 0 {
				h.Mode = 0o755
			}
			info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.rel)))
			if err != nil {
				return err
			}
			h.Size = info.Size()
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg {
			fh, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.rel)))
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, fh)
			fh.Close()
			if err != nil {
				return err
			}
		}
	}
	return tw.Close()
}

// PackFolder archives the whole extension folder dir as one layer for every platform (as it
// was fetched: its h1 stays the one a lock pins).
func PackFolder(dir string) (Layer, error) {
	files, err := listFiles(dir)
	if err != nil {
		return Layer{}, err
	}
	data, err := tarGz(dir, files, func(string) bool { return true })
	return Layer{Archive: data}, err
}
