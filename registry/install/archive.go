package install

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/gemhost/gem/internal/pathx"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

// ArchiveLimits cap what an archive may unpack to.
type ArchiveLimits struct {
	MaxBytes   int64 // total uncompressed size
	MaxEntries int
	MaxRatio   int64 // uncompressed size / archive size
}

// DefaultArchiveLimits are generous for extensions (binaries for six platforms included)
// and stop decompression bombs.
var DefaultArchiveLimits = ArchiveLimits{MaxBytes: 1 << 30, MaxEntries: 50000, MaxRatio: 200}

// ErrUnsafeArchive is wrapped by every refusal of an archive's content.
var ErrUnsafeArchive = errors.New("unsafe archive")

// IsArchive reports whether name ends like an archive gem can unpack.
func IsArchive(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".tar.gz") || strings.HasSuffix(n, ".tgz") || strings.HasSuffix(n, ".zip")
}

// Extract unpacks the archive file src into dst (an empty folder). It refuses absolute
// paths, "..", links that leave dst, devices and pipes, and stops at the limits. On error
// the caller removes dst: nothing is ever written outside it.
func Extract(src, dst string, limits ArchiveLimits) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	x := &extractor{dst: dst, limits: limits, archiveSize: max(fi.Size(), 1), name: src}
	if strings.HasSuffix(strings.ToLower(src), ".zip") {
		err = x.zip(src)
	} else {
		err = x.tarGz(src)
	}
	if err != nil {
		return err
	}
	return x.finishLinks()
}

type extractor struct {
	dst, name   string
	limits      ArchiveLimits
	archiveSize int64
	total       int64
	entries     int
	links       [][2]string // target path, link text: made last, so nothing is written through them
}

func (x *extractor) refuse(entry, why string) error {
	return fmt.Errorf("%w %s: entry %q %s; nothing was installed", ErrUnsafeArchive, x.name, entry, why)
}

// target checks an entry name and returns where it goes.
func (x *extractor) target(name string) (string, error) {
	x.entries++
	if x.entries > x.limits.MaxEntries {
		return "", x.refuse(name, fmt.Sprintf("exceeds the limit of %d entries", x.limits.MaxEntries))
	}
	n := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(n, "/") || (len(n) > 1 && n[1] == ':') {
		return "", x.refuse(name, "has an absolute path")
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return "", x.refuse(name, "climbs out with ..")
		}
	}
	clean := path.Clean(n)
	if clean == "." {
		return "", nil
	}
	return filepath.Join(x.dst, filepath.FromSlash(clean)), nil
}

func (x *extractor) write(name, target string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode.Perm()|0o600)
	if err != nil {
		return err
	}
	budget := x.limits.MaxBytes - x.total
	if ratioBudget := x.limits.MaxRatio*x.archiveSize - x.total; ratioBudget < budget {
		budget = ratioBudget
	}
	n, err := io.Copy(f, io.LimitReader(r, budget+1))
	x.total += n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n > budget {
		return x.refuse(name, fmt.Sprintf("unpacks beyond the limits (%d MiB in all, or %d× the archive's size): a decompression bomb?", x.limits.MaxBytes>>20, x.limits.MaxRatio))
	}
	return nil
}

func (x *extractor) link(name, target, linkText string) error {
	if filepath.IsAbs(linkText) || strings.HasPrefix(linkText, "/") {
		return x.refuse(name, "is a link to an absolute path ("+linkText+")")
	}
	resolved := filepath.Clean(filepath.Join(filepath.Dir(target), filepath.FromSlash(linkText)))
	if !pathx.Within(x.dst, resolved) {
		return x.refuse(name, "is a link that leaves the extension folder ("+linkText+")")
	}
	x.links = append(x.links, [2]string{target, linkText})
	return nil
}

func (x *extractor) finishLinks() error {
	for _, l := range x.links {
		if err := os.MkdirAll(filepath.Dir(l[0]), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(l[1], l[0]); err != nil {
			return err
		}
	}
	return nil
}

func (x *extractor) tarGz(src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s is not a gzip archive: %w", src, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", src, err)
		}
		target, err := x.target(h.Name)
		if err != nil {
			return err
		}
		if target == "" {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := x.write(h.Name, target, tr, os.FileMode(h.Mode)); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := x.link(h.Name, target, h.Linkname); err != nil {
				return err
			}
		case tar.TypeLink:
			return x.refuse(h.Name, "is a hard link; archives for extensions may hold only files, folders and relative symlinks")
		case tar.TypeXGlobalHeader, tar.TypeXHeader:
		default:
			return x.refuse(h.Name, fmt.Sprintf("is a device, pipe or special file (type %q)", h.Typeflag))
		}
	}
}

func (x *extractor) zip(src string) error {
	zr, err := zip.OpenReader(src)
	if err != nil {
		return fmt.Errorf("%s is not a zip archive: %w", src, err)
	}
	defer zr.Close()
	for _, zf := range zr.File {
		target, err := x.target(zf.Name)
		if err != nil {
			return err
		}
		if target == "" {
			continue
		}
		mode := zf.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case mode&os.ModeSymlink != 0:
			rc, err := zf.Open()
			if err != nil {
				return err
			}
			text, err := io.ReadAll(io.LimitReader(rc, 4096))
			rc.Close()
			if err != nil {
				return err
			}
			if err := x.link(zf.Name, target, string(text)); err != nil {
				return err
			}
		case mode.IsRegular():
			rc, err := zf.Open()
			if err != nil {
				return err
			}
			err = x.write(zf.Name, target, rc, mode)
			rc.Close()
			if err != nil {
				return err
			}
		default:
			return x.refuse(zf.Name, "is a device, pipe or special file")
		}
	}
	return nil
}

// extensionRoot returns the folder of an unpacked tree that holds the manifest: the tree
// itself, or its single top-level folder.
func extensionRoot(dir string) (string, error) {
	if holdsManifest(dir) {
		return dir, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var dirs []os.DirEntry
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e)
		}
	}
	if len(dirs) == 1 && len(entries) == 1 {
		inner := filepath.Join(dir, dirs[0].Name())
		if holdsManifest(inner) {
			return inner, nil
		}
	}
	return "", fmt.Errorf("no %s (nor another format's manifest) at the top of the archive or in its single top-level folder", manifest.FileName)
}

// holdsManifest reports whether dir holds the manifest of a format gem reads.
func holdsManifest(dir string) bool {
	for _, f := range registry.Formats {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.ManifestFile))); err == nil {
			return true
		}
	}
	return false
}

// Inspect loads the extension an archive holds (unpacked, as install would, into a folder
// removed before it returns: the extension's name, version and manifest, not its files).
func Inspect(archive string) (*registry.Extension, error) {
	tmp, err := os.MkdirTemp("", "gem-inspect-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := Extract(archive, tmp, DefaultArchiveLimits); err != nil {
		return nil, err
	}
	dir, err := extensionRoot(tmp)
	if err != nil {
		return nil, err
	}
	x, err := registry.LoadFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", archive, err)
	}
	return x, nil
}
