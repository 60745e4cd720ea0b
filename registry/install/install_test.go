package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
)

func TestClassify(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "x.tgz")
	os.WriteFile(archive, nil, 0o644)
	plain := filepath.Join(dir, "notes.txt")
	os.WriteFile(plain, nil, 0o644)
	tests := []struct {
		src     string
		want    SourceKind
		wantErr string
	}{
		{dir, SourceLocal, ""},
		{archive, SourceArchive, ""},
		{plain, "", "not an archive"},
		{"https://example.invalid/ext.tar.gz", SourceArchive, ""},
		{"https://example.invalid/ext.zip?token=1", SourceArchive, ""},
		{"https://github.com/owner/repo", SourceGitHub, ""},
		{"github.com/owner/repo", SourceGitHub, ""},
		{"owner/repo", SourceGitHub, ""},
		{"https://github.com/owner/repo.git", SourceGit, ""},
		{"git@github.com:owner/repo.git", SourceGit, ""},
		{"ssh://git@host/repo", SourceGit, ""},
		{"file:///srv/repo", SourceGit, ""},
		{"https://gitlab.example.invalid/group/repo", SourceGit, ""},
		{"./does-not-exist", "", "not an existing folder"},
	}
	for _, tt := range tests {
		got, err := Classify(tt.src)
		if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("Classify(%q) = %q, %v; want %q, %q", tt.src, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestPickAsset(t *testing.T) {
	rel := func(names ...string) *release {
		r := &release{}
		for _, n := range names {
			r.Assets = append(r.Assets, struct {
				Name string `json:"name"`
				URL  string `json:"browser_download_url"`
			}{n, "u/" + n})
		}
		return r
	}
	linux := manifest.Platform{OS: "linux", Arch: "x64"}
	tests := []struct {
		r    *release
		want string
	}{
		{rel("darwin.arm64.ext.tar.gz", "linux.x64.ext.tar.gz", "linux.arm64.ext.tar.gz"), "linux.x64.ext.tar.gz"},
		{rel("Linux.X64.ext.tgz"), "Linux.X64.ext.tgz"},
		{rel("darwin.ext.zip", "linux.ext.zip"), "linux.ext.zip"},
		{rel("ext.tar.gz"), "ext.tar.gz"},
		{rel("darwin.arm64.ext.tar.gz"), ""},
		{rel("a.tar.gz", "b.tar.gz"), ""},
	}
	for _, tt := range tests {
		if got, _ := pickAsset(tt.r, linux); got != tt.want {
			t.Errorf("pickAsset(%v) = %q, want %q", tt.r.Assets, got, tt.want)
		}
	}
}

func TestConsentDiff(t *testing.T) {
	old := "Installing x\n  * a\n  * b\nfooter\n"
	neu := "Updating x\n  * b\n  * c\nfooter\n"
	added, removed := consentDiff(old, neu)
	if strings.Join(added, ",") != "c" || strings.Join(removed, ",") != "a" {
		t.Errorf("added %v removed %v", added, removed)
	}
	if a, r := consentDiff(old, strings.Replace(old, "Installing", "Updating", 1)); len(a)+len(r) != 0 {
		t.Errorf("a changed verb is not a change: %v %v", a, r)
	}
}

func tarGz(t testing.TB, files map[string]string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, data := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write([]byte(data))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func TestExtractLimits(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.tar.gz")
	os.WriteFile(src, tarGz(t, map[string]string{"a": "1", "b": "2", "c": strings.Repeat("x", 5000)}), 0o644)
	tests := []struct {
		limits ArchiveLimits
		want   string
	}{
		{DefaultArchiveLimits, ""},
		{ArchiveLimits{MaxBytes: 1 << 20, MaxEntries: 2, MaxRatio: 1000}, "limit of 2 entries"},
		{ArchiveLimits{MaxBytes: 100, MaxEntries: 10, MaxRatio: 1000}, "unpacks beyond the limits"},
		{ArchiveLimits{MaxBytes: 1 << 20, MaxEntries: 10, MaxRatio: 2}, "unpacks beyond the limits"},
	}
	for i, tt := range tests {
		dst := filepath.Join(dir, "out", string(rune('a'+i)))
		os.MkdirAll(dst, 0o755)
		err := Extract(src, dst, tt.limits)
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("limits %+v: %v, want %q", tt.limits, err, tt.want)
		}
		if err != nil && !errors.Is(err, ErrUnsafeArchive) {
			t.Errorf("refusal must wrap ErrUnsafeArchive: %v", err)
		}
	}
}

// FuzzExtract: no archive makes the extractor panic or write outside its folder.
func FuzzExtract(f *testing.F) {
	f.Add(tarGz(f, map[string]string{"ext/gemini-extension.json": `{"name":"a"}`}))
	f.Add(tarGz(f, map[string]string{"../x": "y"}))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		src := filepath.Join(dir, "in.tar.gz")
		os.WriteFile(src, data, 0o644)
		dst := filepath.Join(dir, "out")
		os.MkdirAll(dst, 0o755)
		Extract(src, dst, ArchiveLimits{MaxBytes: 1 << 20, MaxEntries: 100, MaxRatio: 100})
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != "in.tar.gz" && e.Name() != "out" {
				t.Fatalf("wrote outside the destination: %s", e.Name())
			}
		}
	})
}

func TestCheckStagedEngines(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "gemini-extension.json"), []byte(`{"name":"needs","version":"1.0.0","engines":{"gem":">=9.0.0"}}`), 0o644)
	in := &Installer{Env: registry.NewEnv(dir, dir, func(string) string { return "" }), GemVersion: "0.3.0"}
	_, _, err := in.checkStaged(dir, false, "")
	if err == nil || !strings.Contains(err.Error(), `extension "needs" needs gem >=9.0.0, but this is gem 0.3.0`) {
		t.Fatalf("want an engines refusal, got %v", err)
	}
	in.GemVersion = "9.1.0"
	if _, _, err := in.checkStaged(dir, false, ""); err != nil {
		t.Fatalf("9.1.0 satisfies >=9.0.0: %v", err)
	}
}

// TestSourcesResolve: the one switch on what kind a source is, from an argument and from
// the metadata an install recorded; the same source either way.
func TestSourcesResolve(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "x.tgz")
	os.WriteFile(archive, nil, 0o644)
	f := &Fetcher{}
	kind := func(s Source) string { return strings.TrimPrefix(fmt.Sprintf("%T", s), "*install.") }
	parse := []struct {
		arg, ref, want, wantErr string
	}{
		{arg: dir, want: "localSource"},
		{arg: archive, want: "archiveSource"},
		{arg: "https://example.invalid/x.zip", want: "archiveSource"},
		{arg: "https://example.invalid/x.zip", ref: "v1", want: "archiveSource"},
		{arg: "owner/repo", want: "githubSource"},
		{arg: "https://github.com/owner/repo.git", want: "gitSource"},
		{arg: dir, ref: "v1", wantErr: "RefOnLocalError"},
		{arg: archive, ref: "v1", wantErr: "RefOnLocalError"},
	}
	for _, tt := range parse {
		s, err := f.Parse(tt.arg, Options{Ref: tt.ref})
		var refErr *RefOnLocalError
		switch {
		case tt.wantErr != "" && !errors.As(err, &refErr):
			t.Errorf("Parse(%q, ref %q) = %v, want a RefOnLocalError", tt.arg, tt.ref, err)
		case tt.wantErr == "" && (err != nil || kind(s) != tt.want):
			t.Errorf("Parse(%q) = %s, %v; want %s", tt.arg, kind(s), err, tt.want)
		}
	}
	installed := []struct {
		meta registry.InstallMetadata
		want string
	}{
		{registry.InstallMetadata{Type: "local", Source: dir}, "localSource"},
		{registry.InstallMetadata{Type: "local", Source: archive}, "archiveSource"},
		{registry.InstallMetadata{Type: "local", Source: "https://example.invalid/x.tar.gz"}, "archiveSource"},
		{registry.InstallMetadata{Type: "git", Source: "https://github.com/owner/repo"}, "gitSource"},
		{registry.InstallMetadata{Type: "github-release", Source: "https://github.com/owner/repo"}, "githubSource"},
		{registry.InstallMetadata{Type: "github-release", Source: "https://example.invalid/x"}, ""},
		{registry.InstallMetadata{Type: "link", Source: dir}, ""},
	}
	for _, tt := range installed {
		s, err := f.Installed(tt.meta)
		if (tt.want == "") != (err != nil) || (err == nil && kind(s) != tt.want) {
			t.Errorf("Installed(%+v) = %s, %v; want %q", tt.meta, kind(s), err, tt.want)
		}
	}
}
