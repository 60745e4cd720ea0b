package registry

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestWriteRootsIndexStaleness: the index of the consent records' write roots is used only
// while the records' folders are as it was written from; any change (a consent recorded or
// removed, a record of gem before receipts, a change under way), an index that is not gem's
// own (another stamp, corrupt, a link, writable by others, another user's) or one written
// within the racy window makes gem read the records, and what it answers is always what each
// record says (Extension.ConsentGrant).
func TestWriteRootsIndexStaleness(t *testing.T) {
	const agreed = `{"name": "x", "version": "1.0.0"}`
	type state struct {
		env      Env
		a, b     string // extension folders: a agreed to with a write root, b never
		writeA   string
		writeB   string
		indexLoc string
	}
	consent := func(t *testing.T, env Env, dir, write string) {
		t.Helper()
		if err := WriteReceipt(env, &Receipt{Name: filepath.Base(dir), Dir: dir, Manifest: agreed, Grant: Grant{Write: []string{write}}, Time: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		racy   time.Duration // the racy window when the index is first written
		change func(t *testing.T, s state)
		source string          // where the second look reads: index, records, each
		again  string          // and a third look (the index rewritten or not)
		want   map[string]bool // folder → whether it is among a's and b's write roots
	}{
		{name: "fresh", source: "index", again: "index", want: map[string]bool{"A": true}},
		{name: "consent recorded since", source: "records", again: "index", want: map[string]bool{"A": true, "B": true},
			change: func(t *testing.T, s state) { consent(t, s.env, s.b, s.writeB) }},
		{name: "record removed", source: "records", again: "index", want: map[string]bool{},
			change: func(t *testing.T, s state) { os.Remove(s.env.ReceiptFile(s.a)) }},
		{name: "record of gem before receipts", source: "records", again: "index", want: map[string]bool{"A": true, "B": true},
			change: func(t *testing.T, s state) {
				r := &Receipt{Name: "b", Dir: s.b, Manifest: agreed, Grant: Grant{Write: []string{s.writeB}}}
				if err := WriteReceiptFile(s.env.LegacyConsentFile(s.b), r); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "change under way (pending receipt)", source: "records", again: "records", want: map[string]bool{"A": true, "B": true},
			change: func(t *testing.T, s state) {
				os.MkdirAll(s.b, 0o755)
				p := &Receipt{Name: "b", Dir: s.b, Manifest: agreed, Grant: Grant{Write: []string{s.writeB}}, Folder: FolderStamp(s.b)}
				if err := WritePendingReceipt(s.env, p); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "index of another stamp", source: "records", again: "index", want: map[string]bool{"A": true},
			change: func(t *testing.T, s state) {
				os.WriteFile(s.indexLoc, []byte(`{"magic": "`+writesIndexMagic+`", "stamp": "1:2:3:4 -"}`), 0o600)
			}},
		{name: "corrupt index", source: "records", again: "index", want: map[string]bool{"A": true},
			change: func(t *testing.T, s state) { os.WriteFile(s.indexLoc, []byte("{"), 0o600) }},
		{name: "index writable by others", source: "records", again: "index", want: map[string]bool{"A": true},
			change: func(t *testing.T, s state) { os.Chmod(s.indexLoc, 0o666) }},
		{name: "index is a link", source: "records", again: "index", want: map[string]bool{"A": true},
			change: func(t *testing.T, s state) {
				os.Rename(s.indexLoc, s.indexLoc+".real")
				os.Symlink(s.indexLoc+".real", s.indexLoc)
			}},
		{name: "records changed within the racy window", racy: time.Hour, source: "records", again: "records", want: map[string]bool{"A": true}},
		{name: "records cannot be listed", source: "each", again: "each", want: map[string]bool{"A": true},
			change: func(t *testing.T, s state) {
				// a record of gem before receipts where its folder should be: listed, not a folder
				os.WriteFile(filepath.Dir(s.env.LegacyConsentFile("x")), []byte("not a folder"), 0o600)
			}},
	}
	if os.Geteuid() == 0 {
		tests = append(tests, struct {
			name   string
			racy   time.Duration
			change func(t *testing.T, s state)
			source string
			again  string
			want   map[string]bool
		}{name: "index of another user", source: "records", again: "index", want: map[string]bool{"A": true},
			change: func(t *testing.T, s state) { os.Chown(s.indexLoc, 65534, 65534) }})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			s := state{env: env, a: filepath.Join(env.Home, ".gemini/extensions/a"), b: filepath.Join(env.Home, ".gemini/extensions/b"),
				writeA: filepath.Join(env.Home, "A"), writeB: filepath.Join(env.Home, "B"), indexLoc: env.ConsentWritesFile()}
			consent(t, env, s.a, s.writeA)
			defer setRacyWindow(tc.racy)()
			if w := ReadWriteRoots(env); w.source != "records" {
				t.Fatalf("first look: %s", w.source)
			}
			if tc.change != nil {
				tc.change(t, s)
			}
			for i, want := range []string{tc.source, tc.again} {
				w := ReadWriteRoots(env)
				if w.source != want {
					t.Errorf("look %d reads the %s, want the %s", i+2, w.source, want)
				}
				var got []string
				for _, dir := range []string{s.a, s.b} {
					x := &Extension{Name: filepath.Base(dir), Dir: dir, Path: dir}
					roots := w.Of(x)
					if each := x.ConsentGrant(env).WriteRoots(); !slices.Equal(roots, each) {
						t.Errorf("look %d: %s writes %q, its record says %q", i+2, dir, roots, each)
					}
					got = append(got, roots...)
				}
				for _, name := range []string{"A", "B"} {
					if slices.Contains(got, filepath.Join(env.Home, name)) != tc.want[name] {
						t.Errorf("look %d: write roots %q, want %s: %v", i+2, got, name, tc.want[name])
					}
				}
			}
		})
	}
}
