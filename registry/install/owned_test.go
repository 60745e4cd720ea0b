package install

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
	"github.com/gemhost/gem/registry/secrets"
)

// TestOwnedCoversLayout: every location paths.Layout names after an extension (called with
// its name, or with its folder) is a part of the owned table, or inside one, or is said here
// why it is not an extension's: a location added for extensions and forgotten in the table
// fails here.
func TestOwnedCoversLayout(t *testing.T) {
	env := registrytest.Env(t, nil)
	const name = "probe-ext"
	dir := filepath.Join(env.GeminiExtensionsDir(), name)
	var parts []string
	for _, p := range owned {
		if p.path != nil {
			parts = append(parts, p.path(env, name, dir))
		}
	}
	notOwned := map[string]string{
		"IndexFile":          "a discovery index is an extensions root's, not an extension's",
		"CheckpointDir":      "a workspace's checkpoints (its argument is a project folder, not an extension's)",
		"GitConfigFile":      "a workspace's git config answer (its argument is a project folder, not an extension's)",
		"PendingReceiptFile": "a change under way's own: dropped when it settles",
		"LegacyConsentFile":  "a receipt from before receipts: registry.RemoveReceipt removes it with the receipt",
		"LegacyRecordFile":   "a receipt from before receipts: registry.RemoveReceipt removes it with the receipt",
	}
	lv := reflect.ValueOf(env.Layout)
	str := reflect.TypeOf("")
	found := 0
	for i := 0; i < lv.NumMethod(); i++ {
		m, mt := lv.Method(i), lv.Type().Method(i)
		if m.Type().NumIn() == 0 || m.Type().NumOut() != 1 || m.Type().Out(0) != str {
			continue
		}
		call := func(arg string) string {
			args := make([]reflect.Value, m.Type().NumIn())
			for j := range args {
				if m.Type().In(j) != str {
					return ""
				}
				args[j] = reflect.ValueOf(arg)
			}
			return m.Call(args)[0].String()
		}
		names := namesIt.MatchString(call(name))
		folder := strings.Contains(call(dir), fsx.PathKey(dir))
		if !names && !folder {
			continue
		}
		found++
		if why, ok := notOwned[mt.Name]; ok {
			t.Logf("%s: not owned: %s", mt.Name, why)
			continue
		}
		at := call(name)
		if folder {
			at = call(dir)
		}
		if !inAny(at, parts) {
			t.Errorf("Layout.%s names %s, an extension's, but no part of the owned table (registry/install/owned.go) holds it: uninstall would leave it", mt.Name, at)
		}
	}
	if found < 10 {
		t.Fatalf("only %d per-extension locations found in paths.Layout: the check is broken", found)
	}
}

// namesIt matches a path with a file or folder named after the probe extension.
var namesIt = regexp.MustCompile(`/probe-ext([./]|$)`)

func inAny(path string, parts []string) bool {
	for _, p := range parts {
		if path == p || strings.HasPrefix(path, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// TestUninstallRemovesOwned: what gem keeps for an extension outside its folder, made as gem
// makes it, goes with it; a same-name extension at the other level keeps what is its own (its
// folder's parts) and what the name's extensions share, until it goes too. Then nothing of
// either is left under $GEM_HOME or in the shared files.
func TestUninstallRemovesOwned(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	env := fx.in.Env
	if _, err := fx.in.Install(ctx, "fake:demo", Options{}); err != nil {
		t.Fatal(err)
	}
	fx.src.files = at("demo", "2.0.0", "")
	if _, err := fx.in.Update(ctx, "demo", Options{}); err != nil { // a backup
		t.Fatal(err)
	}
	if _, err := fx.in.Install(ctx, "fake:demo", Options{Scope: registry.LevelProject}); err != nil {
		t.Fatal(err)
	}
	var user, project *registry.Extension
	for _, x := range registry.Discover(env, registry.Providers).All {
		switch x.Level {
		case registry.LevelUser:
			user = x
		case registry.LevelProject:
			project = x
		}
	}
	if user == nil || project == nil {
		t.Fatal("the two extensions were not both installed")
	}
	for _, x := range []*registry.Extension{user, project} {
		for _, dir := range []string{env.MCPToolCacheFile(x.Dir, "server"), env.ToolCacheFile(x.Dir, "bin"), env.BinHashFile(x.Dir, "bin")} {
			write(t, dir)
		}
		if !registry.FirstWorkspaceAsk(env, x, "mcp server s") {
			t.Fatal("asked before")
		}
	}
	write(t, filepath.Join(env.DataDir("demo"), "state.json"))
	write(t, filepath.Join(env.OverlayDir("demo"), "mcp-s", "upper", "f"))
	if err := secrets.Write(env, "demo", map[string]string{"TOKEN": "t"}); err != nil {
		t.Fatal(err)
	}
	if err := secrets.Seal(env, env.MCPTokensFile("demo"), "mcp-oauth\x00demo", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := registry.SetGrant(env, "demo", registry.Grant{Network: true, For: registry.TargetOf(user)}); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.in.SetEnabled("demo", "user", false); err != nil {
		t.Fatal(err)
	}
	for _, p := range owned { // the check makes sense only if each part was made
		if p.path != nil && !exists(p.path(env, "demo", user.Dir)) {
			t.Fatalf("the test made no %s (%s)", p.what, p.path(env, "demo", user.Dir))
		}
	}

	// The user's goes; the project's keeps its own and the name's.
	if _, err := fx.in.Uninstall([]string{"demo"}, UninstallOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range owned {
		if p.path == nil {
			continue
		}
		mine, its := p.path(env, "demo", user.Dir), p.path(env, "demo", project.Dir)
		if p.key == byFolder && exists(mine) {
			t.Errorf("%s of the removed extension left: %s", p.what, mine)
		}
		if !exists(its) {
			t.Errorf("%s of the remaining same-name extension removed: %s", p.what, its)
		}
	}
	asked, _ := os.ReadFile(env.WorkspaceAskedFile())
	if strings.Contains(string(asked), user.Dir+"\t") || !strings.Contains(string(asked), project.Dir+"\t") {
		t.Errorf("workspace questions after the user's went:\n%s", asked)
	}
	if g, _ := registry.Grants(env); !g["demo"].Empty() {
		t.Errorf("the removed extension's grant left: %+v", g["demo"])
	}
	e, _ := registry.ReadEnablement(env.EnablementPath(project.Provider))
	if _, ok := e["demo"]; !ok {
		t.Error("the name's enablement rules went while an extension of the name remains")
	}

	// The project's goes: nothing of either is left.
	if _, err := fx.in.Uninstall([]string{"demo"}, UninstallOptions{}); err != nil {
		t.Fatal(err)
	}
	keys := []string{fsx.PathKey(user.Dir), fsx.PathKey(project.Dir)}
	filepath.WalkDir(env.GemHome, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(env.GemHome, path)
		for _, k := range append(keys, "demo") {
			if strings.Contains(rel, k) {
				t.Errorf("left in $GEM_HOME: %s", rel)
			}
		}
		if !d.IsDir() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), "demo") {
				t.Errorf("$GEM_HOME/%s still names the extension:\n%s", rel, data)
			}
		}
		return nil
	})
	if data, _ := os.ReadFile(env.EnablementPath(project.Provider)); strings.Contains(string(data), "demo") {
		t.Errorf("enablement rules left:\n%s", data)
	}
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}
