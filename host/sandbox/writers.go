package sandbox

import (
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/gemhost/gem/internal/pathx"
)

// Which folders the programs this gem process started may be changing: a reader that must
// not be raced (an editor's text of a workspace file, sdk/acp) asks WatchWrites before and
// Quiet after. A program counts from just before its start until it and its process group
// end; one without a PID namespace of its own (whose descendants could outlive its group)
// counts until gem ends. Unsandboxed (GEM_SANDBOX=off, no helper, no Landlock), it may
// write everything. Programs of other processes are not known here: where programs get no
// PID namespace (MayOutlive), what an earlier gem started may still be writing, so no
// watch opens at all.

// writer is one started program and what it may write.
type writer struct {
	seq   uint64
	roots []string // the folders it may write, as given and with links resolved
	all   bool     // it may write everywhere the user may
}

// writerSet is every program that may be writing, and those that ended while a watch
// was open.
type writerSet struct {
	mu      sync.Mutex
	seq     uint64
	live    map[*writer]bool
	ended   []*writer // kept while watches > 0: a watch must see one that came and went
	watches int
}

var writers = &writerSet{live: map[*writer]bool{}}

// programWriter is what s may write, started as cmd.
func programWriter(s Program, cmd *exec.Cmd) *writer {
	w := &writer{}
	if s.Policy == nil || Disabled() || !isHelper(cmd) || LandlockABI() < 1 {
		w.all = true
		return w
	}
	for _, r := range s.Policy.Write {
		if r == "" {
			continue
		}
		w.roots = append(w.roots, filepath.Clean(r))
		if real := pathx.Real(r); real != filepath.Clean(r) {
			w.roots = append(w.roots, real)
		}
	}
	return w
}

// add counts w as writing from now on.
func (ws *writerSet) add(w *writer) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.seq++
	w.seq = ws.seq
	ws.live[w] = true
}

// done says w ended (it and its group).
func (ws *writerSet) done(w *writer) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	delete(ws.live, w)
	if ws.watches > 0 {
		ws.ended = append(ws.ended, w)
	}
}

// covers reports whether w may change what dir holds: write dir or a folder above it.
func (w *writer) covers(dirs []string) bool {
	if w.all {
		return true
	}
	for _, r := range w.roots {
		for _, d := range dirs {
			if pathx.Within(r, d) {
				return true
			}
		}
	}
	return false
}

// Watch is an open question: has any program been able to change a folder's entries
// since WatchWrites?
type Watch struct {
	ws    *writerSet
	dirs  []string
	since uint64
	once  sync.Once
}

// WatchWrites opens a watch on dir (as given and with links resolved), or returns nil when
// a program gem started may be changing dir's entries now (renaming one, or putting a link
// in its place), or when programs here may outlive the gem that started them (MayOutlive):
// one an earlier gem process started could be, unseen. Quiet closes it.
func WatchWrites(dir string) *Watch {
	if MayOutlive() {
		return nil
	}
	return writers.watch(dir)
}

// MayOutlive reports whether a sandboxed program gem starts on this machine may outlive the
// gem process that started it: without a PID namespace of its own (namespaces off, as
// AppArmor makes them for users on Ubuntu 24.04, or GEM_SANDBOX_NAMESPACES=off) a
// descendant that left its session (setsid) runs on after gem ends, and a later gem process
// cannot know it. (A program that runs unsandboxed — GEM_SANDBOX=off, no helper — reads the
// user's files itself: racing an editor's read gains it nothing.)
func MayOutlive() bool {
	ns, _ := Namespaces()
	return !ns
}

func (ws *writerSet) watch(dir string) *Watch {
	dirs := []string{filepath.Clean(dir)}
	if real := pathx.Real(dir); real != dirs[0] {
		dirs = append(dirs, real)
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for w := range ws.live {
		if w.covers(dirs) {
			return nil
		}
	}
	ws.watches++
	return &Watch{ws: ws, dirs: dirs, since: ws.seq}
}

// Quiet closes the watch and reports whether no program that may change the folder ran at
// any moment since it opened: none now, none started since (even if ended since).
func (wt *Watch) Quiet() bool {
	ws := wt.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	quiet := true
	for w := range ws.live {
		if w.covers(wt.dirs) {
			quiet = false
		}
	}
	for _, w := range ws.ended {
		if w.seq > wt.since && w.covers(wt.dirs) {
			quiet = false
		}
	}
	wt.once.Do(func() {
		if ws.watches--; ws.watches == 0 {
			ws.ended = nil
		}
	})
	return quiet
}
