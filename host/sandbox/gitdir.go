package sandbox

import (
	"path"
	"strings"
)

// The git capability: a program with the workspace capability uses git in the workspace
// (add, commit, branch, checkout, stash, merge, rebase, git init of a new repository) while
// nothing that makes git run code later can be written. It is part of the workspace
// capability, not a grant of its own: what it opens is data git writes as it works (objects,
// refs, the index, a merge's or rebase's state), which runs nothing, so a program that may
// change the project's files may change its history the same way. What git obeys — config
// (of every repository, submodule and worktree), hooks, info/attributes, alternates,
// commondir and gitdir files, a .git file pointing elsewhere, the folder core.hooksPath
// names (Policy.Frozen, filled by host/commands) — stays closed. What git writes into the
// work tree unchecked is checked where it is put in place: the index (gitindex.go) and refs
// (gitrefs.go: the commits a ref newly reaches change no protected name).
//
// One table decides (gitRules, read by GitRule), for a path inside a repository's .git
// folder, what a program may do there; WorkspaceRule extends it to any path in the
// workspace, and Allows says whether a rule allows one kind of change. The guard
// (guard_call_linux.go) asks them for every call it judges; the view (namespace_linux.go)
// makes the closed entries that exist read-only mounts too.
//
// git init: the .git folder may be made (never renamed, removed or made a file), git init's
// templates written (hooks/*.sample, which git never runs, not made executable later), its
// probes of the file system made (tXXXXXX). A repository's config is put in place only the
// way git writes it, by renaming config.lock onto it, and only while both the config there
// (if any) and the new one hold git init's keys alone (CheckGitFile): a repository just
// made gets its config, an existing one keeps its own. Chosen over comparing with a
// template: git init's config differs by version, file system and flags (core.filemode,
// core.symlinks, core.ignorecase, extensions.objectformat), all checked by key and value.

// ruleKind is what a row of the table makes of a path.
type ruleKind int

const (
	ruleOpen      ruleKind = iota // not protected: anything
	ruleDeny                      // protected: nothing
	ruleGitWrite                  // data git writes as it works: anything but a link or device, a folder renamed whole
	ruleGitFolder                 // a folder that holds closed names too: made or removed, never renamed or written
	ruleGitSample                 // a hook's sample (git init's templates): made and written, never made executable, renamed or removed
	ruleGitProbe                  // git init's probe of the file system (.git/tXXXXXX): a file or a link, made and removed
	ruleGitConfig                 // a repository's config: only put in place by a checked rename (CheckGitFile); its mode changed
	ruleGitTodo                   // a rebase's todo: only put in place by a checked rename (no exec line); removed
	ruleGitIndex                  // the index: only put in place by a checked rename (no .git entry); removed
	ruleGitRef                    // a ref: only put in place by a checked rename (gitrefs.go); removed; its folders made and removed
	ruleGitDir                    // the .git folder itself: made (git init), nothing else
)

// NameRule is what a program with the workspace capability may do with one path of the
// workspace (WorkspaceRule), and why.
type NameRule struct {
	kind  ruleKind
	allow uint // a bit per change (ruleAllows)
	Why   string
}

func rule(k ruleKind, why string) NameRule { return NameRule{kind: k, allow: ruleAllows[k], Why: why} }

// Allows reports whether r allows a change of kind k.
func (r NameRule) Allows(k change) bool { return r.allow&(1<<k) != 0 }

// Checked is the file a checked rename may put at r's path ("config", "todo"), or "".
func (r NameRule) Checked() string {
	switch r.kind {
	case ruleGitConfig:
		return "config"
	case ruleGitTodo:
		return "todo"
	case ruleGitIndex:
		return "index"
	case ruleGitRef:
		return "ref"
	}
	return ""
}

// gitRule is one row of the table: a path inside a .git folder (folded: lower case), whose
// components are matched with path.Match ("*.sample"), "**" last matching the rest (none
// included).
type gitRule struct {
	pattern string
	kind    ruleKind
	why     string
}

// gitRules, the first match wins; a path no row matches is closed ("not a file git keeps in
// its folder"). A lock (X.lock) is judged as X, but a config's or todo's lock, which is
// only data until the checked rename.
var gitRules = []gitRule{
	{"config", ruleGitConfig, "the repository's configuration (core.fsmonitor, core.hooksPath, aliases, filters, includes run or name programs)"},
	{"config.worktree", ruleDeny, "a worktree's configuration (the same keys as config)"},
	{"commondir", ruleDeny, "names the folder git takes config and hooks from"},
	{"gitdir", ruleDeny, "names a repository elsewhere"},
	{"hooks", ruleGitFolder, "the hooks folder"},
	{"hooks/*.sample", ruleGitSample, "a sample hook, which git never runs"},
	{"hooks/**", ruleDeny, "a hook: a program git runs at commit, checkout, merge or push"},
	{"info", ruleGitFolder, "the info folder"},
	{"info/attributes", ruleDeny, "attributes name the filter and diff programs of paths"},
	{"info/exclude", ruleGitWrite, "ignore patterns"},
	{"info/sparse-checkout", ruleGitWrite, "sparse-checkout patterns"},
	{"info/refs", ruleGitWrite, "refs for dumb transports"},
	{"info/refs_*", ruleGitWrite, "refs for dumb transports (being written)"},
	{"info/rev-cache", ruleGitWrite, "an obsolete cache git gc removes"},
	{"objects", ruleGitFolder, "the object store"},
	{"objects/info", ruleGitFolder, "the object store's info folder"},
	{"objects/info/alternates", ruleDeny, "alternates: other object stores git reads"},
	{"objects/info/http-alternates", ruleDeny, "alternates: other object stores git reads"},
	{"objects/**", ruleGitWrite, "objects and packs"},
	{"refs/**", ruleGitRef, "a ref, whose commits git checkout, reset and stash write into the work tree"},
	{"logs/**", ruleGitWrite, "reflogs"},
	{"reftable/**", ruleDeny, "a reftable repository's refs, which gem does not check (the files backend's are)"},
	{"rebase-merge/git-rebase-todo", ruleGitTodo, "a rebase's todo, whose exec lines git rebase --continue runs"},
	{"rebase-merge/strategy", ruleDeny, "a merge strategy: git runs git-merge-<strategy> from PATH"},
	{"rebase-merge/**", ruleGitWrite, "a rebase's state"},
	{"rebase-apply/**", ruleGitWrite, "git am's state"},
	{"sequencer/opts", ruleDeny, "a cherry-pick's options, a merge strategy among them (git-merge-<strategy> from PATH)"},
	{"sequencer/**", ruleGitWrite, "a cherry-pick's or revert's state"},
	{"rr-cache/**", ruleGitWrite, "recorded resolutions"},
	{"branches", ruleGitFolder, "git init's legacy remotes folder"},
	{"modules", ruleGitFolder, "the submodules' repositories"},
	{"worktrees", ruleGitFolder, "the worktrees' folders"},
	{"t??????", ruleGitProbe, "git init's probe"},
	{"index", ruleGitIndex, "the index, whose entries git checkout -- . writes into the work tree unchecked"},
	{"next-index-*", ruleGitWrite, "a commit's temporary index"},
	{"index.stash.*", ruleGitWrite, "a stash's temporary index"},
	{"sharedindex.*", ruleGitWrite, "a split index"},
	{"head", ruleGitRef, "HEAD"},
	{"orig_head", ruleGitRef, "ORIG_HEAD (git reset --hard ORIG_HEAD)"},
	{"*_head", ruleGitWrite, "a pseudo-ref (ORIG_HEAD, FETCH_HEAD, MERGE_HEAD …)"},
	{"merge_msg", ruleGitWrite, "a merge's message"},
	{"merge_mode", ruleGitWrite, "a merge's mode"},
	{"merge_rr", ruleGitWrite, "a merge's recorded resolutions"},
	{"merge_autostash", ruleGitWrite, "a merge's autostash"},
	{"auto_merge", ruleGitWrite, "a merge's result"},
	{"bisect_*", ruleGitWrite, "a bisection's state"},
	{"notes_merge_*", ruleGitWrite, "a notes merge's state"},
	{"*_editmsg", ruleGitWrite, "a message being edited"},
	{"squash_msg", ruleGitWrite, "a squash's message"},
	{"packed-refs", ruleGitRef, "packed refs"},
	{"packed-refs.new", ruleGitWrite, "refs"},
	{"shallow", ruleGitWrite, "a shallow clone's boundary"},
	{"description", ruleGitWrite, "a description (gitweb's)"},
	{"gc.pid", ruleGitWrite, "git gc's lock"},
	{"gc.log", ruleGitWrite, "git gc's log"},
}

// unknownInGit is why a path no row of the table names is closed.
const unknownInGit = "not a file git keeps in its folder"

// GitRule decides a path inside a repository's .git folder (rest: slash-separated,
// relative to it; "" is the folder itself). Submodules' repositories (modules/<name>/…, a
// name may hold slashes) and worktrees' folders (worktrees/<name>/…) follow the same table
// (nestedGitRule).
func GitRule(rest string) NameRule {
	parts := strings.FieldsFunc(rest, isSeparator)
	for i, p := range parts {
		if parts[i] = foldName(p); parts[i] == "" {
			return rule(ruleDeny, "not a plain path") // ., .. and names of dots and spaces
		}
	}
	if len(parts) == 0 {
		return rule(ruleGitDir, "the repository's folder")
	}
	if len(parts) > 1 && (parts[0] == "modules" || parts[0] == "worktrees") {
		return nestedGitRule(parts)
	}
	return gitTableRule(parts)
}

// gitTableRule reads the table for parts (a lock judged as what it locks).
func gitTableRule(parts []string) NameRule {
	last := parts[len(parts)-1]
	if base, ok := strings.CutSuffix(last, ".lock"); ok && base != "" {
		r := gitTableRule(append(parts[:len(parts)-1:len(parts)-1], base))
		switch r.kind {
		case ruleGitConfig, ruleGitTodo, ruleGitIndex, ruleGitRef:
			return rule(ruleGitWrite, "the lock of "+r.Why+" (data until renamed onto it)")
		case ruleGitWrite, ruleDeny:
			return r
		}
		return rule(ruleDeny, "a lock of "+r.Why)
	}
	for _, row := range gitRules {
		if matchGit(strings.Split(row.pattern, "/"), parts) {
			return rule(row.kind, row.why)
		}
	}
	return rule(ruleDeny, unknownInGit)
}

// nestedGitRule decides modules/<name…>/<rest> and worktrees/<name>/<rest>. A submodule's
// name may hold slashes, so every split of the path is a reading of it: the path is closed
// when any reading names a closed file (or a config, todo or probe, which are git init's
// and the top repository's alone), and otherwise allows what every reading that knows it
// allows — never a folder renamed whole (a folder prepared elsewhere, moved in, would be
// read as a repository of its own).
func nestedGitRule(parts []string) NameRule {
	last := len(parts) - 1
	if parts[0] == "worktrees" {
		last = min(last, 2) // a worktree's name is one component
	}
	out := rule(ruleGitWrite, "")
	known, mixed := false, false
	for i := 2; i <= last; i++ {
		r := gitTableRule(parts[i:])
		switch {
		case r.kind == ruleGitConfig || r.kind == ruleGitTodo || r.kind == ruleGitProbe:
			return rule(ruleDeny, "a submodule's or worktree's "+r.Why)
		case r.kind == ruleDeny && r.Why != unknownInGit:
			return rule(ruleDeny, "in a submodule's or worktree's repository: "+r.Why)
		case r.kind == ruleDeny:
			continue
		}
		mixed = mixed || (known && r.kind != out.kind)
		if !known || bits(r.allow) < bits(out.allow) {
			out.kind, out.Why = r.kind, r.Why
		}
		out.allow &= r.allow
		known = true
	}
	if !known {
		if len(parts) == 2 || parts[0] == "modules" {
			// the repository itself (modules/<name>, worktrees/<name>), or a folder on the way
			// to one (modules/<a>/<b>)
			return rule(ruleGitFolder, "a submodule's or worktree's repository")
		}
		return rule(ruleDeny, "not a file git keeps in a worktree's folder")
	}
	out.allow &^= 1 << changeRenameDir
	if mixed && out.Checked() != "" {
		out.kind = ruleGitFolder // readings that disagree: no checked rename
	}
	return out
}

func bits(v uint) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

// matchGit matches a pattern's components against a path's.
func matchGit(pattern, parts []string) bool {
	for i, p := range pattern {
		if p == "**" {
			return true
		}
		if i >= len(parts) {
			return false
		}
		if ok, _ := path.Match(p, parts[i]); !ok {
			return false
		}
	}
	return len(pattern) == len(parts)
}

// WorkspaceRule decides a path of the workspace (rel: relative to it): a protected name
// closes it, but inside a repository's .git folder (the exact name .git: a case variant is
// no folder git makes), where GitRule decides — and a protected name deeper in is closed
// there too (a branch named GEMINI.md is refused).
func WorkspaceRule(rel string) NameRule {
	parts := strings.FieldsFunc(rel, isSeparator)
	for i, c := range parts {
		if !isProtectedName(c) {
			continue
		}
		if c != ".git" {
			return rule(ruleDeny, c+" is protected")
		}
		rest := strings.Join(parts[i+1:], "/")
		if name, ok := ProtectedComponent(rest); ok {
			return rule(ruleDeny, name+" is protected")
		}
		return GitRule(rest)
	}
	return rule(ruleOpen, "")
}

// ruleAllows are the changes each kind allows (a bit per change).
var ruleAllows = map[ruleKind]uint{
	ruleOpen:      all(changeContent, changeMakeFile, changeMakeDir, changeMakeOther, changeRemove, changeRenameFile, changeRenameDir, changeMode),
	ruleGitWrite:  all(changeContent, changeMakeFile, changeMakeDir, changeRemove, changeRenameFile, changeRenameDir, changeMode),
	ruleGitFolder: all(changeMakeDir, changeRemove),
	ruleGitSample: all(changeContent, changeMakeFile),
	ruleGitProbe:  all(changeMakeFile, changeMakeOther, changeRemove),
	ruleGitConfig: all(changeMode),
	ruleGitTodo:   all(changeRemove),
	ruleGitIndex:  all(changeRemove),
	ruleGitRef:    all(changeMakeDir, changeRemove),
	ruleGitDir:    all(changeMakeDir),
}

func all(ks ...change) uint {
	var b uint
	for _, k := range ks {
		b |= 1 << k
	}
	return b
}

// change is what a call does to a path.
type change int

const (
	changeContent    change = iota // opened for writing, truncated
	changeMakeFile                 // a new file (or a new hard link)
	changeMakeDir                  // a new folder
	changeMakeOther                // a new symbolic link, FIFO, socket or device
	changeRemove                   // removed
	changeRenameFile               // renamed, from or to (not a folder)
	changeRenameDir                // a folder renamed, from or to
	changeMode                     // chmod, ACL, extended attribute
)

// names: the change makes, removes or renames a name.
func (k change) names() bool { return k != changeContent && k != changeMode }
