package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/internal/paths"
	"github.com/gemhost/gem/registry/lockfile"
)

// Receipt is gem's one record of an extension folder, kept in $GEM_HOME (never in the
// extension's or the project's folders, which programs may write): what the user agreed to
// (the manifest's exact bytes, what its programs need, the consent text shown) and, for an
// extension gem installed, where it came from and the hashes of its files. It is keyed by
// the extension's folder (its identity with its source), never by its display name: the
// permissions a program gets are those of the manifest agreed to.
//
// A change of what is installed writes the new receipt as pending before it renames the
// folder into place, naming the folder it describes by its file identity (Folder). The
// rename is the commit: a reader takes the pending receipt as current as soon as the folder
// in place is the one it names (ReadReceipt), and the next lifecycle change settles it
// (install.Installer). A crash at any step leaves the old folder with the old receipt or the
// new folder with the new one.
type Receipt struct {
	Name     string `json:"name"`
	Dir      string `json:"dir"`    // the extension folder found under its root
	Source   string `json:"source"` // its install source (or link target); "" when none
	Level    Level  `json:"level"`
	Manifest string `json:"manifest,omitempty"` // the manifest's bytes when the user agreed
	// Grant is what its programs needed to run when the user agreed (launcher profiles and
	// toolchains: host/toolchain), shown in the consent text and granted with it.
	Grant Grant     `json:"grant,omitempty"`
	Time  time.Time `json:"time"`

	// Written by an install, update, link or rollback.
	Version     string            `json:"version,omitempty"`
	Install     *InstallMetadata  `json:"install,omitempty"`
	ConsentText string            `json:"consent,omitempty"` // the text the user agreed to
	Files       map[string]string `json:"files,omitempty"`   // relative path -> sha256 (gem ext verify)
	// Pin is what gem lock records for it (registry/lockfile): the commit, archive and h1 of
	// this platform, and the payloads its MCP servers' launchers are given, pinned.
	Pin *lockfile.Entry `json:"pin,omitempty"`

	// Pending only: the file identity of the folder the receipt describes (FolderStamp);
	// Remove, an uninstall of that folder (KeepData: its data folders stay); Replaced,
	// where the version it replaces lands when the folder is swapped in (kept as backup).
	Folder   string `json:"folder,omitempty"`
	Remove   bool   `json:"remove,omitempty"`
	KeepData bool   `json:"keepData,omitempty"`
	Replaced string `json:"replaced,omitempty"`
	// Enable: settling adds the install's enablement rule. Enablement: the enablement file
	// an uninstall drops the extension's entry from.
	Enable     bool   `json:"enable,omitempty"`
	Enablement string `json:"enablement,omitempty"`
}

// FolderStamp is the file identity of dir (device and inode), which a rename keeps: "" when
// dir does not exist.
func FolderStamp(dir string) string {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return FileStamp(dir)
}

// Committed reports whether p's change happened: the folder in place is the one p names (an
// uninstall: the one it named is gone).
func (p *Receipt) Committed() bool {
	now := FolderStamp(p.Dir)
	if p.Remove {
		return now != p.Folder
	}
	return now != "" && now == p.Folder
}

// ReadReceipt returns the receipt of the extension folder dir: the pending one when its
// change was committed, else the current one (nil when none, or when the one found under the
// folder's key belongs to another folder). Receipts written before gem kept them in one
// place (consent/<key>.json and records/<name>.json) are read as one.
func ReadReceipt(env Env, dir string) (*Receipt, error) {
	dir = filepath.Clean(dir)
	current, err := CurrentReceipt(env, dir)
	if p, perr := readReceiptFile(env.PendingReceiptFile(dir)); perr == nil && p.Dir == dir && p.Committed() &&
		(current == nil || !current.Time.After(p.Time)) { // a receipt written since (a consent) wins
		if p.Remove {
			return nil, nil
		}
		return p, nil
	}
	return current, err
}

// CurrentReceipt is ReadReceipt without the pending one: the receipt as it was before a
// change under way.
func CurrentReceipt(env Env, dir string) (*Receipt, error) {
	dir = filepath.Clean(dir)
	r, err := readReceiptFile(env.ReceiptFile(dir))
	if errors.Is(err, os.ErrNotExist) {
		r, err = readLegacyReceipt(env, dir)
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.Dir != dir {
		return nil, nil
	}
	return r, nil
}

func readReceiptFile(path string) (*Receipt, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	var r Receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, &ReceiptError{Path: path, Err: err}
	}
	r.Dir = filepath.Clean(r.Dir)
	return &r, nil
}

// ReceiptError is a receipt gem cannot read.
type ReceiptError struct {
	Path string
	Err  error
}

func (e *ReceiptError) Error() string { return fmt.Sprintf("receipt %s: %v", e.Path, e.Err) }
func (e *ReceiptError) Unwrap() error { return e.Err }

// readLegacyReceipt merges a consent record and an install record of gem before receipts.
func readLegacyReceipt(env Env, dir string) (*Receipt, error) {
	r, err := readReceiptFile(env.LegacyConsentFile(dir))
	if err != nil {
		return nil, err
	}
	if data, err := readFile(env.LegacyRecordFile(r.Name)); err == nil && PlainName(r.Name) {
		var rec struct {
			Path    string            `json:"path"`
			Version string            `json:"version"`
			Install *InstallMetadata  `json:"install"`
			Consent string            `json:"consent"`
			Files   map[string]string `json:"files"`
		}
		if json.Unmarshal(data, &rec) == nil && filepath.Clean(rec.Path) == dir {
			r.Version, r.Install, r.ConsentText, r.Files = rec.Version, rec.Install, rec.Consent, rec.Files
		}
	}
	return r, nil
}

func marshalReceipt(r *Receipt) ([]byte, error) {
	out, err := json.MarshalIndent(r, "", "  ")
	return append(out, '\n'), err
}

// WriteReceiptFile writes r to path (a copy kept with a backup).
func WriteReceiptFile(path string, r *Receipt) error {
	data, err := marshalReceipt(r)
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(path, data, 0o600)
}

// ReadReceiptFile reads a receipt written by WriteReceiptFile.
func ReadReceiptFile(path string) (*Receipt, error) { return readReceiptFile(path) }

// WriteReceipt makes r the current receipt of its folder (and forgets the records gem kept
// before receipts).
func WriteReceipt(env Env, r *Receipt) error {
	r.Dir = filepath.Clean(r.Dir)
	current := *r
	current.Folder, current.Remove, current.KeepData, current.Replaced = "", false, false, ""
	current.Enable, current.Enablement = false, ""
	data, err := marshalReceipt(&current)
	if err != nil {
		return err
	}
	if err := fsx.WriteFileAtomic(env.ReceiptFile(r.Dir), data, 0o600); err != nil {
		return err
	}
	env.dropLegacy(r)
	return nil
}

// WritePendingReceipt writes p as the pending receipt of its folder: current once the
// folder it names (p.Folder) is in place, unless a receipt is written after it (Time, now
// when unset).
func WritePendingReceipt(env Env, p *Receipt) error {
	p.Dir = filepath.Clean(p.Dir)
	if p.Time.IsZero() {
		p.Time = time.Now().UTC()
	}
	data, err := marshalReceipt(p)
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(env.PendingReceiptFile(p.Dir), data, 0o600)
}

// DropPendingReceipt forgets the pending receipt of folder dir.
func DropPendingReceipt(env Env, dir string) error {
	err := os.Remove(env.PendingReceiptFile(filepath.Clean(dir)))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// PendingReceipts lists the pending receipts (a change killed before it was settled).
func PendingReceipts(env Env) []*Receipt {
	names, _ := filepath.Glob(filepath.Join(env.ReceiptDir(), "*"+paths.PendingReceiptSuffix))
	var out []*Receipt
	for _, n := range names {
		if r, err := readReceiptFile(n); err == nil {
			out = append(out, r)
		} else {
			os.Remove(n) // unreadable: it was never committed to
		}
	}
	return out
}

// RemoveReceipt forgets the receipt of folder dir.
func RemoveReceipt(env Env, dir string) error {
	dir = filepath.Clean(dir)
	r, _ := readReceiptFile(env.ReceiptFile(dir))
	err := os.Remove(env.ReceiptFile(dir))
	if r == nil {
		r, _ = readLegacyReceipt(env, dir)
	}
	if r != nil {
		env.dropLegacy(r)
	} else {
		os.Remove(env.LegacyConsentFile(dir))
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

func (e Env) dropLegacy(r *Receipt) {
	os.Remove(e.LegacyConsentFile(r.Dir))
	if PlainName(r.Name) {
		if data, err := readFile(e.LegacyRecordFile(r.Name)); err == nil && strings.Contains(string(data), fmt.Sprintf("%q", r.Dir)) {
			os.Remove(e.LegacyRecordFile(r.Name))
		}
	}
}
