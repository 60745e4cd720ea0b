package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func entry(h1 string) *Entry {
	return &Entry{Source: "https://github.com/o/r", Type: "git", Commit: "c1", Version: "1.0.0",
		Platforms: map[string]*Platform{"linux/x64": {H1: h1}}}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text, err string
	}{
		{"empty extensions", `{"lockVersion": 1, "extensions": {}}`, ""},
		{"an entry", `{"lockVersion": 1, "extensions": {"a": {"source": "s", "type": "git", "platforms": {"linux/x64": {"h1": "h1:x"}}}}}`, ""},
		{"no version", `{"extensions": {}}`, `"lockVersion" is missing`},
		{"newer version", `{"lockVersion": 2, "extensions": {}}`, "newer than this gem reads"},
		{"unknown field", `{"lockVersion": 1, "extensions": {}, "x": 1}`, `unknown field "x"`},
		{"no source", `{"lockVersion": 1, "extensions": {"a": {"type": "git"}}}`, `extensions.a: "source" is missing`},
		{"no type", `{"lockVersion": 1, "extensions": {"a": {"source": "s"}}}`, `extensions.a: "type" is missing`},
		{"path name", `{"lockVersion": 1, "extensions": {"../a": {"source": "s", "type": "git"}}}`, "not an extension name"},
		{"bad hash", `{"lockVersion": 1, "extensions": {"a": {"source": "s", "type": "git", "platforms": {"linux/x64": {"h1": "sha:x"}}}}}`, "must be an h1: hash"},
		{"null entry", `{"lockVersion": 1, "extensions": {"a": null}}`, "null entry"},
		{"trailing", `{"lockVersion": 1, "extensions": {}} {}`, "text after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text))
			if tc.err == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}

// TestMergeKeepsTrees: a payload resolved again (npm view knows no tree) keeps the tree the
// lock pinned for the same package; another version drops it.
func TestMergeKeepsTrees(t *testing.T) {
	pay := func(version, tree string) *Entry {
		e := entry("h1:a")
		e.Payloads = []Payload{{Server: "docs", Type: "npm", Name: "docs-mcp", Version: version, Integrity: "sha512-" + version, Tree: tree}}
		return e
	}
	locked := pay("1.0.0", "t1")
	got, err := Merge("x", locked, pay("1.0.0", ""))
	if err != nil || got.Payloads[0].Tree != "t1" {
		t.Fatalf("same package: %+v %v", got, err)
	}
	got, err = Merge("x", locked, pay("1.1.0", ""))
	if err != nil || got.Payloads[0].Tree != "" {
		t.Fatalf("another version: %+v %v", got, err)
	}
	if locked.Payloads[0].Tree != "t1" {
		t.Fatal("the locked entry was changed")
	}
}

func TestMerge(t *testing.T) {
	darwin := entry("h1:d")
	darwin.Platforms = map[string]*Platform{"darwin/arm64": {H1: "h1:d"}}
	newer := entry("h1:n")
	newer.Commit = "c2"
	for _, tc := range []struct {
		name          string
		locked, got   *Entry
		wantPlatforms []string
		err           string
	}{
		{"nothing locked", nil, entry("h1:a"), []string{"linux/x64"}, ""},
		{"same", entry("h1:a"), entry("h1:a"), []string{"linux/x64"}, ""},
		{"another platform is added", entry("h1:a"), darwin, []string{"darwin/arm64", "linux/x64"}, ""},
		{"a new pin replaces", entry("h1:a"), newer, []string{"linux/x64"}, ""},
		{"same pin, other files", entry("h1:a"), entry("h1:b"), nil, "h1 (its files) differs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Merge("x", tc.locked, tc.got)
			if tc.err != "" {
				var m *MismatchError
				if !errors.As(err, &m) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want a MismatchError with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for p := range got.Platforms {
				names = append(names, p)
			}
			if strings.Join(slices.Sorted(slices.Values(names)), ",") != strings.Join(tc.wantPlatforms, ",") {
				t.Fatalf("platforms %v, want %v", names, tc.wantPlatforms)
			}
			if tc.name == "another platform is added" && got.Platforms["linux/x64"].H1 != "h1:a" {
				t.Fatal("the locked platform's hash was replaced")
			}
		})
	}
}

func TestCheck(t *testing.T) {
	withPayload := func(integrity string) *Entry {
		e := entry("h1:a")
		e.Payloads = []Payload{{Server: "docs", Type: "npm", Name: "docs-mcp", Version: "1.2.3", Integrity: integrity}}
		return e
	}
	withTree := func(tree string) *Entry {
		e := withPayload("sha512-a")
		e.Payloads[0].Tree = tree
		return e
	}
	moved := entry("h1:a")
	moved.Commit = "c9"
	otherFiles := entry("h1:b")
	archive := entry("h1:a")
	archive.Platforms["linux/x64"].SHA256 = "aa"
	archive2 := entry("h1:a")
	archive2.Platforms["linux/x64"].SHA256 = "bb"
	for _, tc := range []struct {
		name        string
		locked, got *Entry
		platform    string
		strict      bool
		field       string
	}{
		{"same", entry("h1:a"), entry("h1:a"), "linux/x64", true, ""},
		{"moved tag", entry("h1:a"), moved, "linux/x64", false, "commit"},
		{"changed file", entry("h1:a"), otherFiles, "linux/x64", false, "platforms.linux/x64.h1 (its files)"},
		{"changed archive", archive, archive2, "linux/x64", false, "platforms.linux/x64.sha256"},
		{"unlocked platform, lenient", entry("h1:a"), entry("h1:a"), "darwin/arm64", false, ""},
		{"unlocked platform, strict", entry("h1:a"), entry("h1:a"), "darwin/arm64", true, "platforms.darwin/arm64"},
		{"same payload", withPayload("sha512-a"), withPayload("sha512-a"), "linux/x64", true, ""},
		{"changed payload", withPayload("sha512-a"), withPayload("sha512-b"), "linux/x64", false, "integrity of docs-mcp@1.2.3 (server docs)"},
		{"payload gone", withPayload("sha512-a"), entry("h1:a"), "linux/x64", false, "payload of server docs"},
		{"unlocked payload, strict", entry("h1:a"), withPayload("sha512-a"), "linux/x64", true, "payload of server docs"},
		{"unlocked payload, lenient", entry("h1:a"), withPayload("sha512-a"), "linux/x64", false, ""},
		{"a tree resolved again is unknown", withTree("t1"), withPayload("sha512-a"), "linux/x64", true, ""},
		{"same tree", withTree("t1"), withTree("t1"), "linux/x64", true, ""},
		{"another tree", withTree("t1"), withTree("t2"), "linux/x64", false, "dependency tree of docs-mcp@1.2.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check("x", tc.locked, tc.got, tc.platform, tc.strict)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var m *MismatchError
			if !errors.As(err, &m) || !strings.HasPrefix(m.Field, tc.field) {
				t.Fatalf("error %v, want a mismatch of %q", err, tc.field)
			}
		})
	}
}

func TestWriteRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gem.lock")
	f := New()
	f.Extensions["b"] = entry("h1:b")
	f.Extensions["a"] = entry("h1:a")
	f.Extensions["a"].Payloads = []Payload{{Server: "z", Type: "npm", Name: "z", Version: "1"}, {Server: "a", Type: "npm", Name: "a", Version: "1"}}
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Write(path); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(path)
	if string(first) != string(second) {
		t.Fatalf("writing what was read changed the lock:\n%s\n%s", first, second)
	}
	if strings.Index(string(first), `"server": "a"`) > strings.Index(string(first), `"server": "z"`) {
		t.Fatal("payloads are not in a stable order")
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing lock: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"lockVersion": 1, "extensions": {"a": {"source": "s", "type": "git", "platforms": {"linux/x64": {"h1": "h1:x"}}}}}`))
	f.Add([]byte(`{"lockVersion": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lf, err := Parse(data)
		if err != nil {
			return
		}
		out, err := lf.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("a lock gem wrote does not parse: %v\n%s", err, out)
		}
		out2, _ := again.Marshal()
		if string(out) != string(out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}
