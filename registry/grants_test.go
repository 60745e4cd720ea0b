package registry_test

import (
	"os"
	"testing"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// TestGrantFor: a grant applies to the extension it was made for only; one recorded by name
// alone (an older gem's) applies to none and is shown by UnboundGrant.
func TestGrantFor(t *testing.T) {
	env := registrytest.Env(t, nil)
	registrytest.Extension(t, env, "tool", `{"name": "tool", "version": "1.0.0"}`, nil)
	x := registry.Discover(env, registry.Providers).Find("tool")
	if x == nil {
		t.Fatal("not discovered")
	}
	other := &registry.GrantTarget{Dir: "/elsewhere/tool"}
	for _, tc := range []struct {
		name    string
		grant   registry.Grant
		applies bool
		unbound bool
	}{
		{"made for it", registry.Grant{Network: true, For: registry.TargetOf(x)}, true, false},
		{"made for another of its name", registry.Grant{Network: true, For: other}, false, false},
		{"by name alone", registry.Grant{Network: true}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(env.GrantsFile())
			if err := registry.SetGrant(env, "tool", tc.grant); err != nil {
				t.Fatal(err)
			}
			g, ok, err := registry.GrantFor(env, x)
			if err != nil || ok != tc.applies || (ok && !g.Network) {
				t.Fatalf("GrantFor = %+v, %v, %v; want applies %v", g, ok, err, tc.applies)
			}
			if _, ub := registry.UnboundGrant(env, "tool"); ub != tc.unbound {
				t.Fatalf("UnboundGrant = %v, want %v", ub, tc.unbound)
			}
		})
	}
}
