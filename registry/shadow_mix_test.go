package registry_test

import (
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// mixSlot is one place an extension named "x" can be: a provider's root at one level.
type mixSlot struct {
	id     string // provider-level, also the manifest's version
	level  registry.Level
	folder func(env registry.Env) string // the root
}

// mixOrder is the discovery order of spec/discovery.md, written out: native (100) before
// gemini (60) before antigravity (50); native project first, the others user first.
var mixOrder = []mixSlot{
	{"native-project", registry.LevelProject, func(e registry.Env) string { return filepath.Join(e.Cwd, ".gem/extensions") }},
	{"native-user", registry.LevelUser, func(e registry.Env) string { return filepath.Join(e.GemHome, "extensions") }},
	{"gemini-user", registry.LevelUser, func(e registry.Env) string { return filepath.Join(e.GeminiHome, ".gemini/extensions") }},
	{"gemini-project", registry.LevelProject, func(e registry.Env) string { return filepath.Join(e.Cwd, ".gemini/extensions") }},
	{"antigravity-user", registry.LevelUser, func(e registry.Env) string { return filepath.Join(e.GeminiHome, ".gemini/config/plugins") }},
	{"antigravity-project", registry.LevelProject, func(e registry.Env) string { return filepath.Join(e.Cwd, ".agents/plugins") }},
}

// TestShadowingAllMixes: for every mix of providers and levels holding an extension "x",
// in a trusted folder or not, with each project one agreed to or not (never, or its
// manifest changed since), the one that runs is the first in the discovery order that takes
// part (a user one, or a project one in a trusted folder agreed to as it is), else the first
// (skipped); every other one is shadowed by it, and a project one shadowed by a user one is
// a conflict.
func TestShadowingAllMixes(t *testing.T) {
	m := newMix(t)
	n := 0
	for present := 1; present < 1<<len(mixOrder); present++ {
		m.place(t, present)
		for _, i := range m.projects {
			m.manifest(t, i, false)
		}
		m.agree(t, false)
		for _, trusted := range []bool{false, true} { // never agreed to
			m.check(t, trusted, map[int]bool{})
			n++
		}
		m.agree(t, true)
		for agreed := 0; agreed < 1<<len(m.projects); agreed++ {
			consented := map[int]bool{}
			for j, i := range m.projects {
				consented[i] = agreed&(1<<j) != 0
				m.manifest(t, i, !consented[i]) // not agreed to: changed since
			}
			for _, trusted := range []bool{false, true} {
				m.check(t, trusted, consented)
				n++
			}
		}
	}
	if n != 556 {
		t.Errorf("ran %d mixes", n)
	}
}

// mix is one home and project with "x" in each slot of mixOrder; the slots not present
// are moved aside (so consent records, bound to the folder, are written once).
type mix struct {
	env      registry.Env
	present  int
	projects []int // the present project slots
	receipts map[int][]byte
}

func newMix(t *testing.T) *mix {
	m := &mix{env: registrytest.Env(t, nil), present: 1<<len(mixOrder) - 1, receipts: map[int][]byte{}}
	if err := os.MkdirAll(filepath.Dir(m.env.TrustedFoldersFile()), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range mixOrder {
		if err := os.MkdirAll(filepath.Join(s.folder(m.env), "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		m.manifest(t, i, false)
	}
	for _, x := range registry.Discover(m.env, registry.Providers).All {
		if x.Level == registry.LevelProject {
			if err := registry.RecordConsent(m.env, x, registry.Grant{}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(m.env.ReceiptFile(x.Dir))
			if err != nil {
				t.Fatal(err)
			}
			m.receipts[slotOf(x.Version)] = data
		}
	}
	return m
}

// place moves the slots of present (bits) in and the others aside.
func (m *mix) place(t *testing.T, present int) {
	t.Helper()
	m.projects = nil
	for i, s := range mixOrder {
		in, aside := filepath.Join(s.folder(m.env), "x"), filepath.Join(m.env.Home, "aside", s.id)
		os.MkdirAll(filepath.Dir(aside), 0o755)
		was, is := m.present&(1<<i) != 0, present&(1<<i) != 0
		if was && !is {
			must(t, os.Rename(in, aside))
		} else if !was && is {
			must(t, os.Rename(aside, in))
		}
		if is && s.level == registry.LevelProject {
			m.projects = append(m.projects, i)
		}
	}
	m.present = present
}

// agree puts back (or removes) the consent records of the present project slots.
func (m *mix) agree(t *testing.T, agreed bool) {
	t.Helper()
	for _, i := range m.projects {
		path := m.env.ReceiptFile(filepath.Join(mixOrder[i].folder(m.env), "x"))
		if agreed {
			must(t, os.WriteFile(path, m.receipts[i], 0o600))
		} else if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// manifest writes slot i's manifest, changed or as agreed to.
func (m *mix) manifest(t *testing.T, i int, changed bool) {
	t.Helper()
	text := fmt.Sprintf(`{"name": "x", "version": %q}`, mixOrder[i].id)
	if changed {
		text = fmt.Sprintf(`{"name": "x", "version": %q, "description": "changed since"}`, mixOrder[i].id)
	}
	must(t, os.WriteFile(filepath.Join(mixOrder[i].folder(m.env), "x", "gemini-extension.json"), []byte(text), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (m *mix) check(t *testing.T, trusted bool, consented map[int]bool) {
	t.Helper()
	rules := "{}"
	if trusted {
		rules = fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, m.env.Cwd)
	}
	if err := os.WriteFile(m.env.TrustedFoldersFile(), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	var desc []string
	winner := -1
	for i, s := range mixOrder {
		if m.present&(1<<i) == 0 {
			continue
		}
		desc = append(desc, s.id+map[bool]string{true: "(agreed)"}[consented[i]])
		if winner < 0 && (s.level == registry.LevelUser || trusted && consented[i]) {
			winner = i
		}
	}
	for i := 0; winner < 0; i++ {
		if m.present&(1<<i) != 0 {
			winner = i
		}
	}
	mix := fmt.Sprintf("%s trusted=%v", strings.Join(desc, " "), trusted)

	d := registry.Discover(m.env, registry.Providers)
	if len(d.All) != bits.OnesCount(uint(m.present)) {
		t.Fatalf("%s: %d discovered", mix, len(d.All))
	}
	if w := d.Find("x"); w == nil || w.Version != mixOrder[winner].id {
		t.Errorf("%s: %s runs, want %s", mix, versionOf(w), mixOrder[winner].id)
	}
	for _, x := range d.All {
		i := slotOf(x.Version)
		wantConflict := i != winner && mixOrder[i].level == registry.LevelProject && mixOrder[winner].level == registry.LevelUser
		switch {
		case x.Shadowed != (i != winner):
			t.Errorf("%s: %s shadowed = %v", mix, x.Version, x.Shadowed)
		case x.Shadowed && x.ShadowedBy.Version != mixOrder[winner].id:
			t.Errorf("%s: %s shadowed by %s, want %s", mix, x.Version, x.ShadowedBy.Version, mixOrder[winner].id)
		case x.Conflict != wantConflict:
			t.Errorf("%s: %s conflict = %v", mix, x.Version, x.Conflict)
		}
	}
}

func versionOf(x *registry.Extension) string {
	if x == nil {
		return "none"
	}
	return x.Version
}

func slotOf(id string) int {
	for i, s := range mixOrder {
		if s.id == id {
			return i
		}
	}
	return -1
}
