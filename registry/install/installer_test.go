package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// fakeSource stands in for a git repository or a release: what it holds now (files), and
// how often it was fetched. It speaks the Source interface the real ones do.
type fakeSource struct {
	files   map[string]string
	fetches int
	fail    error
}

func (s *fakeSource) Fetch(_ context.Context, staging string, _ Options) (*Fetched, error) {
	s.fetches++
	if s.fail != nil {
		return nil, s.fail
	}
	tree := filepath.Join(staging, "tree")
	for rel, data := range s.files {
		p := filepath.Join(tree, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return nil, err
		}
	}
	return &Fetched{Dir: tree, Meta: registry.InstallMetadata{Source: "fake:" + s.files["name"], Type: "fake"}}, nil
}

// Newer: like an archive, known only once fetched (Update compares the files).
func (s *fakeSource) Newer(context.Context, *registry.Extension, registry.InstallMetadata) (bool, string, error) {
	return true, "", nil
}

// fakeSources resolves "fake:<name>" (an argument or recorded metadata) to its source.
type fakeSources map[string]*fakeSource

func (f fakeSources) Parse(arg string, _ Options) (Source, error) {
	if s, ok := f[strings.TrimPrefix(arg, "fake:")]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("no fake source %q", arg)
}

func (f fakeSources) Installed(meta registry.InstallMetadata) (Source, error) {
	if meta.Type != "fake" {
		return nil, &UnknownSourceError{Type: meta.Type, Source: meta.Source}
	}
	return f.Parse(meta.Source, Options{})
}

// at returns an extension's files at a version; extra adds to its manifest.
func at(name, v, extra string) map[string]string {
	return map[string]string{
		"name":                  name, // read by fakeSource for its metadata, installed as a file
		"gemini-extension.json": fmt.Sprintf(`{"name": %q, "version": %q%s}`, name, v, extra),
		"GEMINI.md":             "version " + v + "\n",
	}
}

const withServer = `, "mcpServers": {"db": {"command": "/bin/true"}}`

// fixture is an Installer over a fake source in a hermetic home, answering consent with
// answer and keeping what it was asked.
type fixture struct {
	in     *Installer
	src    *fakeSource
	asked  []string
	answer bool
}

func newFixture(t *testing.T) *fixture {
	fx := &fixture{src: &fakeSource{files: at("demo", "1.0.0", "")}, answer: true}
	fx.in = &Installer{
		Env:     registrytest.Env(t, nil),
		Sources: fakeSources{"demo": fx.src},
		Out:     io.Discard,
		Prompt:  (*answering)(fx),
	}
	return fx
}

// answering is the fixture as the one who answers consent.
type answering fixture

func (a *answering) Confirm(_ context.Context, q prompt.Question) (bool, error) {
	a.asked = append(a.asked, q.Text)
	return a.answer, nil
}
func (a *answering) Choose(context.Context, string, []prompt.Choice, int) (int, error) {
	return 0, errors.New("not asked in install")
}
func (a *answering) Input(context.Context, string) (string, error) {
	return "", errors.New("not asked in install")
}
func (a *answering) CanPrompt() bool { return true }

func (fx *fixture) dir() string { return filepath.Join(fx.in.Env.GeminiExtensionsDir(), "demo") }

func (fx *fixture) installedVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fx.dir(), "GEMINI.md"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(string(data), "version "))
}

// assertConsistent checks what gem ext verify and gem ext update rely on: the receipt
// describes the folder in place, and nothing is pending.
func (fx *fixture) assertConsistent(t *testing.T) {
	t.Helper()
	changed, missing, added, err := Verify(fx.in.Env, "demo")
	if err != nil || len(changed)+len(missing)+len(added) > 0 {
		t.Errorf("verify: changed %v, missing %v, added %v, err %v", changed, missing, added, err)
	}
	r, _ := registry.ReadReceipt(fx.in.Env, fx.dir())
	if r == nil || r.Version != fx.installedVersion(t) {
		t.Errorf("receipt %+v does not describe version %s in place", r, fx.installedVersion(t))
	}
	if p := registry.PendingReceipts(fx.in.Env); len(p) > 0 {
		t.Errorf("pending receipts left: %+v", p[0])
	}
}

func TestInstallThroughSource(t *testing.T) {
	tests := []struct {
		name       string
		answer     bool
		fail       error
		files      map[string]string
		wantErr    error
		wantErrAs  any
		wantStatus Status
	}{
		{name: "agreed", answer: true, wantStatus: StatusInstalled},
		{name: "declined", answer: false, wantErr: ErrDeclined},
		{name: "fetch fails", answer: true, fail: errors.New("unreachable"), wantErr: nil},
		{name: "invalid manifest", answer: true, files: map[string]string{"gemini-extension.json": `{"name": "demo"}`}, wantErrAs: new(*InvalidError)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			fx.answer, fx.src.fail = tt.answer, tt.fail
			if tt.files != nil {
				fx.src.files = tt.files
			}
			res, err := fx.in.Install(context.Background(), "fake:demo", Options{})
			switch {
			case tt.wantStatus != "":
				if err != nil || res.Status != tt.wantStatus {
					t.Fatalf("Install = %+v, %v; want %s", res, err, tt.wantStatus)
				}
				if len(fx.asked) != 1 || !strings.Contains(fx.asked[0], `Installing extension "demo" 1.0.0 from fake:demo`) {
					t.Errorf("asked %q", fx.asked)
				}
				fx.assertConsistent(t)
				r, _ := registry.ReadReceipt(fx.in.Env, fx.dir())
				if r.ConsentText+"Do you want to continue?" != fx.asked[0] || r.Install.Source != "fake:demo" || r.Manifest == "" || r.Level != registry.LevelUser {
					t.Errorf("receipt %+v does not hold the consent text, source and manifest", r)
				}
				if state, _ := mustFind(t, fx.in.Env).Consented(fx.in.Env); state != registry.ConsentGiven {
					t.Errorf("consent state %s, want consented", state)
				}
			default:
				if err == nil {
					t.Fatalf("Install = %+v, want an error", res)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("err = %v, want %v", err, tt.wantErr)
				}
				if tt.wantErrAs != nil && !errors.As(err, tt.wantErrAs) {
					t.Errorf("err = %T %v, want %T", err, err, tt.wantErrAs)
				}
				if _, err := os.Lstat(fx.dir()); err == nil {
					t.Error("a failed install left the extension folder")
				}
				if entries, _ := os.ReadDir(fx.in.Env.ReceiptDir()); len(entries) > 0 {
					t.Errorf("a failed install left receipts: %v", entries)
				}
			}
		})
	}
}

func mustFind(t *testing.T, env registry.Env) *registry.Extension {
	t.Helper()
	x, err := registry.Discover(env, registry.Providers).Get("demo")
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestUpdateThroughSource(t *testing.T) {
	tests := []struct {
		name        string
		next        map[string]string // what the source holds at the update
		answer      bool
		fail        error
		wantStatus  Status
		wantVersion string   // installed after the update
		wantAsked   []string // lines the consent question holds ("" : not asked)
	}{
		{name: "nothing new", next: at("demo", "1.0.0", ""), wantStatus: StatusUpToDate, wantVersion: "1.0.0"},
		{name: "new version, same consent", next: at("demo", "1.1.0", ""), wantStatus: StatusUpdated, wantVersion: "1.1.0"},
		{name: "consent changed, agreed", next: at("demo", "2.0.0", withServer), answer: true, wantStatus: StatusUpdated, wantVersion: "2.0.0",
			wantAsked: []string{"What it brings has changed since you agreed:", `  + MCP server "db" (stdio) runs: /bin/true`}},
		{name: "consent changed, declined", next: at("demo", "2.0.0", withServer), answer: false, wantVersion: "1.0.0",
			wantAsked: []string{`  + MCP server "db" (stdio) runs: /bin/true`}},
		{name: "consent narrowed", next: at("demo", "2.0.0", ""), answer: true, wantStatus: StatusUpdated, wantVersion: "2.0.0",
			wantAsked: []string{`  - MCP server "db" (stdio) runs: /bin/true`}},
		{name: "fetch fails", next: at("demo", "2.0.0", ""), fail: errors.New("unreachable"), wantVersion: "1.0.0"},
		{name: "renamed at the source", next: at("other", "2.0.0", ""), wantVersion: "1.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			if tt.name == "consent narrowed" {
				fx.src.files = at("demo", "1.0.0", withServer)
			}
			if _, err := fx.in.Install(context.Background(), "fake:demo", Options{}); err != nil {
				t.Fatal(err)
			}
			fx.asked, fx.answer, fx.src.files, fx.src.fail = nil, tt.answer, tt.next, tt.fail
			res, err := fx.in.Update(context.Background(), "demo", Options{})
			if tt.wantStatus == "" {
				if err == nil {
					t.Fatalf("Update = %+v, want an error", res)
				}
			} else if err != nil || res.Status != tt.wantStatus {
				t.Fatalf("Update = %+v, %v; want %s", res, err, tt.wantStatus)
			}
			if got := fx.installedVersion(t); got != tt.wantVersion {
				t.Errorf("installed %s, want %s", got, tt.wantVersion)
			}
			if len(tt.wantAsked) == 0 && len(fx.asked) > 0 {
				t.Errorf("asked %q, want no question (nothing it brings changed)", fx.asked)
			}
			for _, l := range tt.wantAsked {
				if len(fx.asked) != 1 || !strings.Contains(fx.asked[0], l+"\n") {
					t.Errorf("asked %q, want the line %q", fx.asked, l)
				}
			}
			fx.assertConsistent(t)
		})
	}
}

func TestRollbackThroughSource(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	if _, err := fx.in.Install(ctx, "fake:demo", Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.in.Rollback("demo"); err == nil {
		t.Fatal("rollback with no previous version succeeded")
	}
	fx.src.files = at("demo", "2.0.0", withServer)
	if _, err := fx.in.Update(ctx, "demo", Options{}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"1.0.0", "2.0.0", "1.0.0"} {
		res, err := fx.in.Rollback("demo")
		if err != nil || res.Status != StatusRolledBack || res.Version != want {
			t.Fatalf("rollback %d = %+v, %v; want %s", i, res, err, want)
		}
		if got := fx.installedVersion(t); got != want {
			t.Errorf("rollback %d: installed %s, want %s", i, got, want)
		}
		fx.assertConsistent(t)
		// the permissions are those of the manifest in place, agreed to before
		if state, _ := mustFind(t, fx.in.Env).Consented(fx.in.Env); state != registry.ConsentGiven {
			t.Errorf("rollback %d: consent state %s", i, state)
		}
	}
	// the update after rollback asks about what the rolled-back version lacks
	fx.asked = nil
	if res, err := fx.in.Update(ctx, "demo", Options{}); err != nil || res.Status != StatusUpdated {
		t.Fatalf("update after rollback = %+v, %v", res, err)
	}
	if len(fx.asked) != 1 || !strings.Contains(fx.asked[0], `  + MCP server "db"`) {
		t.Errorf("asked %q", fx.asked)
	}
}

// TestCommittedChangeIsCurrent kills nothing but stops where a crash would: the pending
// receipt written and the folder swapped, settle never run. Readers already see the new
// receipt; the next lock settles it (the backup kept, nothing pending).
func TestCommittedChangeIsCurrent(t *testing.T) {
	for _, committed := range []bool{true, false} {
		t.Run(fmt.Sprintf("committed=%v", committed), func(t *testing.T) {
			fx := newFixture(t)
			newDir := fx.pendingUpdate(t)
			want := "1.0.0"
			if committed {
				if err := exchange(newDir, fx.dir()); err != nil {
					t.Fatal(err)
				}
				want = "2.0.0"
			}
			if r, _ := registry.ReadReceipt(fx.in.Env, fx.dir()); r == nil || r.Version != want {
				t.Fatalf("before settling, the receipt read is %+v, want version %s", r, want)
			}
			if c, m, a, err := Verify(fx.in.Env, "demo"); err != nil || len(c)+len(m)+len(a) > 0 {
				t.Errorf("before settling, verify: %v %v %v %v", c, m, a, err)
			}
			l, err := fx.in.lock() // the next gem that changes state
			if err != nil {
				t.Fatal(err)
			}
			l.Release()
			fx.assertConsistent(t)
			_, err = os.Stat(filepath.Join(fx.in.Env.BackupDir("demo"), "GEMINI.md"))
			if committed != (err == nil) {
				t.Errorf("backup kept = %v, want %v", err == nil, committed)
			}
		})
	}
}

func TestUninstallThroughSource(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keepData=%v", keep), func(t *testing.T) {
			fx := newFixture(t)
			if _, err := fx.in.Install(context.Background(), "fake:demo", Options{}); err != nil {
				t.Fatal(err)
			}
			data := fx.in.Env.DataDir("demo")
			os.MkdirAll(data, 0o700)
			removed, err := fx.in.Uninstall([]string{"demo"}, UninstallOptions{KeepData: keep})
			if err != nil || len(removed) != 1 {
				t.Fatalf("Uninstall = %+v, %v", removed, err)
			}
			if _, err := os.Lstat(fx.dir()); err == nil {
				t.Error("folder still there")
			}
			if r, _ := registry.ReadReceipt(fx.in.Env, fx.dir()); r != nil {
				t.Errorf("receipt still there: %+v", r)
			}
			e, _ := registry.ReadEnablement(fx.in.Env.EnablementPath(registry.ProviderByID(registry.Providers, "gemini")))
			if _, ok := e["demo"]; ok {
				t.Error("enablement entry still there")
			}
			if _, err := os.Stat(data); (err == nil) != keep {
				t.Errorf("data folder kept = %v, want %v", err == nil, keep)
			}
			if _, _, _, err := Verify(fx.in.Env, "demo"); err == nil {
				t.Error("verify of an uninstalled extension succeeded")
			}
		})
	}
}

// TestConsentBetweenCommitAndSettle: a consent recorded after a change was committed but
// before it was settled (gem ext consent takes no lock) is what readers see, and settling
// the change does not overwrite it.
func TestConsentBetweenCommitAndSettle(t *testing.T) {
	fx := newFixture(t)
	newDir := fx.pendingUpdate(t)
	if err := exchange(newDir, fx.dir()); err != nil {
		t.Fatal(err)
	}
	granted := registry.Grant{Network: true}
	if err := registry.RecordConsent(fx.in.Env, mustFind(t, fx.in.Env), granted); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		r, _ := registry.ReadReceipt(fx.in.Env, fx.dir())
		if r == nil || !r.Grant.Network || r.Version != "2.0.0" {
			t.Errorf("%s: receipt %+v, want version 2.0.0 with the consent's grant", when, r)
		}
	}
	check("before settling")
	l, err := fx.in.lock()
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	check("after settling")
	if p := registry.PendingReceipts(fx.in.Env); len(p) > 0 {
		t.Errorf("pending left: %+v", p[0])
	}
}

// pendingUpdate installs demo 1.0.0, fetches 2.0.0 and writes its pending receipt (the old
// version to be kept as the backup, as an update does), stopping where a crash would before
// the folders are exchanged; it returns the fetched folder.
func (fx *fixture) pendingUpdate(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	if _, err := fx.in.Install(ctx, "fake:demo", Options{}); err != nil {
		t.Fatal(err)
	}
	fx.src.files = at("demo", "2.0.0", "")
	staging, err := stage(filepath.Dir(fx.dir()))
	if err != nil {
		t.Fatal(err)
	}
	f, nx, _, err := fx.in.fetchChecked(ctx, fx.src, Options{}, staging, "test-fetched")
	if err != nil {
		t.Fatal(err)
	}
	p, err := fx.in.pending(nx, f.Dir, fx.dir(), registry.LevelUser, f.Meta, "text", registry.Grant{})
	if err != nil {
		t.Fatal(err)
	}
	p.Replaced = f.Dir
	if err := registry.WritePendingReceipt(fx.in.Env, p); err != nil {
		t.Fatal(err)
	}
	return f.Dir
}
