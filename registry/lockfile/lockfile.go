// Package lockfile owns gem.lock: what a project's (or the user's) extensions are pinned to,
// so every machine installs the same ones, byte for byte. It is a leaf (types, reading,
// writing, merging and comparing); fetching and hashing live in registry/install.
//
// The format is JSON (gem's manifests and records are JSON; a lock is reviewed in pull
// requests, so it is indented and its keys sorted):
//
//	{
//	  "lockVersion": 1,
//	  "extensions": {
//	    "hello": {
//	      "source": "https://github.com/acme/hello",   // as installed (install metadata)
//	      "type": "github-release",                    // git, github-release, local, marketplace, mcp-registry
//	      "ref": "v1.2.0",                             // what was asked (--ref), if anything
//	      "version": "1.2.0",                          // the manifest's version
//	      "commit": "3f1c…",                           // git sources: the commit checked out
//	      "releaseTag": "v1.2.0",                      // GitHub releases: the tag fetched
//	      "platforms": {                               // per platform, added and never replaced
//	        "linux/x64": {"h1": "h1:…", "asset": "https://…/linux.x64.hello.tar.gz", "sha256": "…"}
//	      },
//	      "payloads": [                                // what its MCP servers fetch when they start
//	        {"server": "docs", "type": "npm", "name": "@acme/docs-mcp", "version": "1.4.2", "integrity": "sha512-…"}
//	      ]
//	    }
//	  }
//	}
//
// Choices (Terraform's .terraform.lock.hcl is the model): h1 is golang.org/x/mod's dirhash
// Hash1 of the extension's files (without .git and the install metadata gem writes), so it
// says the same whatever the files came in; a platform's hashes are added when the lock is
// written on another platform and never replaced while the pin (source, commit, tag, version)
// stays the same: a different hash at the same pin is a mismatch, never a silent update. A
// new pin (an update) replaces the entry. An entry is keyed by the extension's name, which is
// unique in one scope.
package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/gemhost/gem/internal/fsx"
)

// Version is the lockVersion gem writes and reads.
const Version = 1

// File is a gem.lock.
type File struct {
	LockVersion int               `json:"lockVersion"`
	Extensions  map[string]*Entry `json:"extensions"`
}

// Entry pins one extension.
type Entry struct {
	Source     string               `json:"source"`
	Type       string               `json:"type"`
	Ref        string               `json:"ref,omitempty"`
	Version    string               `json:"version,omitempty"`
	Commit     string               `json:"commit,omitempty"`
	ReleaseTag string               `json:"releaseTag,omitempty"`
	Digest     string               `json:"digest,omitempty"` // an OCI reference's (its index's)
	Platforms  map[string]*Platform `json:"platforms,omitempty"`
	Signer     *Signer              `json:"signer,omitempty"`
	Payloads   []Payload            `json:"payloads,omitempty"`
}

// Platform is what was fetched for one platform (Node's names, "linux/x64").
type Platform struct {
	H1     string `json:"h1"`
	Asset  string `json:"asset,omitempty"`  // the archive downloaded, when one was
	SHA256 string `json:"sha256,omitempty"` // its sha256 (hex)
}

// Signer is the identity an extension's signature was verified against.
type Signer struct {
	Issuer   string `json:"issuer"`
	Identity string `json:"identity"`
}

// Payload is what one MCP server's launcher fetches when it starts, pinned.
type Payload struct {
	Server    string `json:"server"`
	Type      string `json:"type"` // npm, pypi, oci, mcpb
	Name      string `json:"name"`
	Version   string `json:"version"`
	Integrity string `json:"integrity,omitempty"` // npm's dist.integrity (sha512-…)
	SHA256    string `json:"sha256,omitempty"`
	// Tree is the sha256 of the whole dependency tree a bundle carries for it (npm: every
	// package's path, version and integrity), written by gem ext bundle: a bundle or a
	// mirror's payload is installed only when its tree is this one, so a mirror cannot
	// change a server's dependencies either. Kept when a lock is written again.
	Tree string `json:"tree,omitempty"`
}

func (p Payload) String() string {
	return fmt.Sprintf("%s %s@%s (server %s)", p.Type, p.Name, p.Version, p.Server)
}

// New is an empty lock.
func New() *File { return &File{LockVersion: Version, Extensions: map[string]*Entry{}} }

// Error is a gem.lock gem cannot read.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Read reads the lock at path: an error wrapping os.ErrNotExist when there is none.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return f, nil
}

// Parse reads a lock's bytes, refusing what gem cannot trust to mean what it says: unknown
// fields, a newer lockVersion, entries without a source or type.
func Parse(data []byte) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a valid gem.lock: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a valid gem.lock: text after the JSON object")
	}
	switch {
	case f.LockVersion == 0:
		return nil, errors.New(`"lockVersion" is missing`)
	case f.LockVersion > Version:
		return nil, fmt.Errorf(`"lockVersion" %d is newer than this gem reads (%d): update gem`, f.LockVersion, Version)
	}
	if f.Extensions == nil {
		f.Extensions = map[string]*Entry{}
	}
	for name, e := range f.Extensions {
		switch {
		case e == nil:
			return nil, fmt.Errorf("extensions.%s: null entry", name)
		case name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == "..":
			return nil, fmt.Errorf("extensions.%q: not an extension name", name)
		case e.Source == "":
			return nil, fmt.Errorf(`extensions.%s: "source" is missing`, name)
		case e.Type == "":
			return nil, fmt.Errorf(`extensions.%s: "type" is missing`, name)
		}
		for p, pl := range e.Platforms {
			if pl == nil || !strings.HasPrefix(pl.H1, "h1:") {
				return nil, fmt.Errorf(`extensions.%s.platforms.%s: "h1" must be an h1: hash`, name, p)
			}
		}
	}
	return &f, nil
}

// Marshal is the lock's text: indented, keys sorted, payloads in a stable order.
func (f *File) Marshal() ([]byte, error) {
	for _, e := range f.Extensions {
		sort.Slice(e.Payloads, func(i, j int) bool {
			a, b := e.Payloads[i], e.Payloads[j]
			if a.Server != b.Server {
				return a.Server < b.Server
			}
			return a.Name < b.Name
		})
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Write replaces the lock at path atomically (a crash leaves the old or the new one).
func (f *File) Write(path string) error {
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(path, data, 0o644)
}

// Names are the locked extensions' names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Extensions))
	for n := range f.Extensions {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SamePin reports whether a and b pin the same thing (a platform's hashes may be added to
// it): the same source, type, ref, commit, release tag, digest and version.
func SamePin(a, b *Entry) bool {
	return a.Source == b.Source && a.Type == b.Type && a.Ref == b.Ref && a.Commit == b.Commit &&
		a.ReleaseTag == b.ReleaseTag && a.Digest == b.Digest && a.Version == b.Version
}

// Merge is the entry to lock for name now that got was installed, given the entry locked so
// far (nil: none): a new pin replaces the entry; the same pin adds got's platforms to the
// locked ones, and a platform hashed differently at the same pin is a *MismatchError (the
// files changed without the pin changing).
func Merge(name string, locked, got *Entry) (*Entry, error) {
	if locked == nil || !SamePin(locked, got) {
		return got, nil
	}
	out := *locked
	out.Platforms = map[string]*Platform{}
	for p, pl := range locked.Platforms {
		out.Platforms[p] = pl
	}
	for p, pl := range got.Platforms {
		if old, ok := out.Platforms[p]; ok {
			if err := comparePlatform(name, p, old, pl); err != nil {
				return nil, err
			}
			continue
		}
		out.Platforms[p] = pl
	}
	if got.Signer != nil {
		out.Signer = got.Signer
	}
	if len(got.Payloads) > 0 || len(locked.Payloads) == 0 {
		out.Payloads = got.Payloads
	}
	// A payload resolved again (npm view) knows no tree: the locked one's stays when it is
	// the same package.
	for i, p := range out.Payloads {
		if lp, ok := findPayload(locked.Payloads, p.Server); ok && p.Tree == "" && lp.Tree != "" &&
			lp.Name == p.Name && lp.Version == p.Version && lp.Integrity == p.Integrity && lp.SHA256 == p.SHA256 {
			out.Payloads = slices.Clone(out.Payloads)
			out.Payloads[i].Tree = lp.Tree
		}
	}
	return &out, nil
}

// MismatchError is an extension that is not what its lock says.
type MismatchError struct {
	Name   string // the extension
	Field  string // what differs: "commit", "platforms.linux/x64.h1", "payload docs"…
	Locked string // what gem.lock says
	Got    string // what was fetched (or "" when gem.lock has nothing for it)
}

func (e *MismatchError) Error() string {
	switch {
	case e.Got == "":
		return fmt.Sprintf("%s: %s: gem.lock has %s, but this install has none", e.Name, e.Field, e.Locked)
	case e.Locked == "":
		return fmt.Sprintf("%s: %s: gem.lock has none (this install has %s)", e.Name, e.Field, e.Got)
	}
	return fmt.Sprintf("%s: %s differs: gem.lock has %s, the source now gives %s", e.Name, e.Field, e.Locked, e.Got)
}

// Check compares what was fetched (got, one platform) with the locked entry, failing closed on
// the first difference. strict (--locked): the lock must already hold platform's hashes, and
// every payload got has must be locked.
func Check(name string, locked, got *Entry, platform string, strict bool) error {
	fields := []struct{ field, l, g string }{
		{"source", locked.Source, got.Source},
		{"commit", locked.Commit, got.Commit},
		{"release tag", locked.ReleaseTag, got.ReleaseTag},
		{"digest", locked.Digest, got.Digest},
		{"version", locked.Version, got.Version},
	}
	for _, f := range fields {
		if f.l != "" && f.l != f.g {
			return &MismatchError{Name: name, Field: f.field, Locked: f.l, Got: f.g}
		}
	}
	lp, gp := locked.Platforms[platform], got.Platforms[platform]
	switch {
	case lp != nil && gp != nil:
		if err := comparePlatform(name, platform, lp, gp); err != nil {
			return err
		}
	case lp == nil && strict:
		return &MismatchError{Name: name, Field: "platforms." + platform, Got: "its files (gem lock adds this platform's hashes)"}
	}
	if locked.Signer != nil && (got.Signer == nil || *got.Signer != *locked.Signer) {
		g := ""
		if got.Signer != nil {
			g = got.Signer.Issuer + " " + got.Signer.Identity
		}
		return &MismatchError{Name: name, Field: "signer", Locked: locked.Signer.Issuer + " " + locked.Signer.Identity, Got: g}
	}
	for _, lpay := range locked.Payloads {
		gpay, ok := findPayload(got.Payloads, lpay.Server)
		if !ok {
			return &MismatchError{Name: name, Field: "payload of server " + lpay.Server, Locked: lpay.Name + "@" + lpay.Version}
		}
		if gpay.Name != lpay.Name || gpay.Version != lpay.Version || gpay.Type != lpay.Type {
			return &MismatchError{Name: name, Field: "payload of server " + lpay.Server, Locked: lpay.Type + " " + lpay.Name + "@" + lpay.Version, Got: gpay.Type + " " + gpay.Name + "@" + gpay.Version}
		}
		if lpay.Integrity != gpay.Integrity {
			return &MismatchError{Name: name, Field: "integrity of " + lpay.Name + "@" + lpay.Version + " (server " + lpay.Server + ")", Locked: lpay.Integrity, Got: orNone(gpay.Integrity)}
		}
		if lpay.SHA256 != gpay.SHA256 {
			return &MismatchError{Name: name, Field: "sha256 of " + lpay.Name + "@" + lpay.Version + " (server " + lpay.Server + ")", Locked: orNone(lpay.SHA256), Got: orNone(gpay.SHA256)}
		}
		// A tree is known only of what a bundle carries: compared when both know one.
		if lpay.Tree != "" && gpay.Tree != "" && lpay.Tree != gpay.Tree {
			return &MismatchError{Name: name, Field: "dependency tree of " + lpay.Name + "@" + lpay.Version + " (server " + lpay.Server + ")", Locked: lpay.Tree, Got: gpay.Tree}
		}
	}
	if strict {
		for _, gpay := range got.Payloads {
			if _, ok := findPayload(locked.Payloads, gpay.Server); !ok {
				return &MismatchError{Name: name, Field: "payload of server " + gpay.Server, Got: gpay.Name + "@" + gpay.Version}
			}
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func findPayload(ps []Payload, server string) (Payload, bool) {
	for _, p := range ps {
		if p.Server == server {
			return p, true
		}
	}
	return Payload{}, false
}

func comparePlatform(name, platform string, locked, got *Platform) error {
	if locked.SHA256 != "" && got.SHA256 != "" && locked.SHA256 != got.SHA256 {
		return &MismatchError{Name: name, Field: "platforms." + platform + ".sha256 (the archive " + got.Asset + ")", Locked: locked.SHA256, Got: got.SHA256}
	}
	if locked.H1 != got.H1 {
		return &MismatchError{Name: name, Field: "platforms." + platform + ".h1 (its files)", Locked: locked.H1, Got: got.H1}
	}
	return nil
}

// Payload returns the pinned payload of server (ok false: none).
func (e *Entry) Payload(server string) (Payload, bool) {
	if e == nil {
		return Payload{}, false
	}
	return findPayload(e.Payloads, server)
}
