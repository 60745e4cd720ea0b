package install

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/secrets"
)

// What an extension owns outside its folder, in one table (owned): uninstall removes every
// part (settleRemoval), and TestOwnedCoversLayout checks that every location paths.Layout
// names after an extension's name or folder is one of them, so a new one cannot be forgotten.
//
// A part is keyed by the extension's folder (its receipt, its tool caches, the questions gem
// asked about it, the user's grant bound to it): that extension's alone, removed with it. Or
// by its name (its data, overlays, sealed settings, backup, enablement rules): shared with a
// same-name extension at the other level (the one it shadows, or that shadows it), so removed
// only when no extension of that name remains. Data parts stay with --keep-data.

// ownedKey says whose a part is.
type ownedKey int

const (
	byFolder ownedKey = iota // the extension in that folder's alone
	byName                   // every extension of that name's
)

// ownedPart is one thing gem keeps for an extension outside its folder.
type ownedPart struct {
	what  string
	key   ownedKey
	data  bool // the extension's data: kept by --keep-data
	shown bool // named in what uninstall says it removed (the rest is gem's bookkeeping)
	// path is its file or folder (nil for an entry in a file shared by every extension);
	// remove takes it away instead of deleting path, and says whether there was one.
	path   func(env registry.Env, name, dir string) string
	remove func(in *Installer, p *registry.Receipt) (bool, error)
}

// owned is everything an extension owns outside its folder, in the order uninstall removes it.
var owned = []ownedPart{
	{what: "enablement rules", key: byName, remove: (*Installer).dropEnablement},
	{what: "the user's grant", key: byFolder, remove: (*Installer).dropGrant},
	{what: "workspace questions asked", key: byFolder, remove: func(in *Installer, p *registry.Receipt) (bool, error) {
		return registry.ForgetWorkspaceAsks(in.Env, p.Name, p.Dir)
	}},
	{what: "receipt", key: byFolder, path: func(env registry.Env, _, dir string) string { return env.ReceiptFile(dir) },
		remove: (*Installer).dropReceipt},
	{what: "MCP tool cache", key: byFolder, path: func(env registry.Env, _, dir string) string { return env.MCPToolCacheDir(dir) }},
	{what: "plugin tool cache", key: byFolder, path: func(env registry.Env, _, dir string) string { return env.ToolCacheDir(dir) }},
	{what: "verified binaries", key: byFolder, path: func(env registry.Env, _, dir string) string { return env.BinHashDir(dir) }},
	{what: "previous version", key: byName, shown: true, path: func(env registry.Env, name, _ string) string { return env.BackupDir(name) }},
	{what: "previous version's receipt", key: byName, path: func(env registry.Env, name, _ string) string { return env.BackupReceiptFile(name) }},
	{what: "data folder", key: byName, data: true, shown: true, path: func(env registry.Env, name, _ string) string { return env.DataDir(name) }},
	{what: "overlays", key: byName, data: true, shown: true, path: func(env registry.Env, name, _ string) string { return env.OverlayDir(name) }},
	{what: "MCP sign-ins", key: byName, data: true, shown: true, path: func(env registry.Env, name, _ string) string { return env.MCPTokensFile(name) }},
	{what: "sensitive settings", key: byName, data: true, shown: true,
		path: func(env registry.Env, name, _ string) string { return env.SecretsFile(name) },
		remove: func(in *Installer, p *registry.Receipt) (bool, error) {
			if _, err := os.Lstat(in.Env.SecretsFile(p.Name)); err != nil {
				return false, nil
			}
			return true, secrets.Write(in.Env, p.Name, nil) // (its key is the user's, kept)
		}},
}

// removeOwned removes what the extension p removed owned (settleRemoval): its folder's parts
// always, its name's when no extension of that name remains. It says what it deleted and
// what it kept (--keep-data), of the parts shown.
func (in *Installer) removeOwned(p *registry.Receipt) (deleted, kept []string, err error) {
	deleted, kept = []string{}, []string{}
	// A name that is not a plain folder name ("../x": a hostile manifest's) would name
	// folders outside gem's: nothing of its name is touched.
	lastOfName := registry.PlainName(p.Name) && !slices.ContainsFunc(registry.Discover(in.Env, registry.Providers).All,
		func(y *registry.Extension) bool { return y.Name == p.Name })
	for _, part := range owned {
		if part.key == byName && !lastOfName {
			continue
		}
		path, exists := "", false
		if part.path != nil {
			path = part.path(in.Env, p.Name, p.Dir)
			_, statErr := os.Lstat(path)
			exists = statErr == nil
		}
		switch {
		case part.data && p.KeepData:
			if part.shown && exists {
				kept = append(kept, path)
			}
			continue
		case part.remove == nil && !exists:
			continue
		}
		gone := false
		if part.remove != nil {
			// An entry of a shared file, or a record: a failure leaves the change pending,
			// settled again at the next start.
			if gone, err = part.remove(in, p); err != nil {
				return deleted, kept, err
			}
		} else {
			// A folder that cannot be deleted (a file of another owner in it) is left, and
			// not named.
			gone = dropPath(path) == nil
		}
		if gone && part.shown {
			deleted = append(deleted, path)
		}
	}
	return deleted, kept, nil
}

// dropPath deletes a file or folder, renamed away first so a crash leaves it whole or gone.
func dropPath(path string) error {
	trash := path + ".gem-removing"
	if err := os.Rename(path, trash); err != nil {
		return err
	}
	return os.RemoveAll(trash)
}

// dropEnablement removes the name's rules from the enablement file it was recorded in.
func (in *Installer) dropEnablement(p *registry.Receipt) (bool, error) {
	if p.Enablement == "" {
		return false, nil
	}
	e, err := registry.ReadEnablement(p.Enablement)
	if err != nil {
		return false, nil // not gem's to repair here; gem ext enable says what is wrong with it
	}
	if _, ok := e[p.Name]; !ok {
		return false, nil
	}
	delete(e, p.Name)
	return true, registry.WriteEnablement(p.Enablement, e)
}

// dropGrant removes the user's grant made for the removed user extension: the next one of
// its name starts without it. A grant bound to another folder is that extension's.
func (in *Installer) dropGrant(p *registry.Receipt) (bool, error) {
	if p.Level != registry.LevelUser {
		return false, nil
	}
	all, err := registry.Grants(in.Env)
	g, ok := all[p.Name]
	if err != nil || !ok || g.Empty() || g.For != nil && filepath.Clean(g.For.Dir) != p.Dir {
		return false, nil
	}
	return true, registry.SetGrant(in.Env, p.Name, registry.Grant{})
}

// dropReceipt forgets the folder's receipt, unless a newer one was written since p (a
// consent recorded between the commit and the settle).
func (in *Installer) dropReceipt(p *registry.Receipt) (bool, error) {
	if in.newerReceipt(p) {
		return false, nil
	}
	err := registry.RemoveReceipt(in.Env, p.Dir)
	return err == nil, err
}
