package manifest

import (
	"testing"
)

// FuzzParse: no input makes the parser or loader panic, and a parsed manifest survives
// resolution. Seeds: testdata/fuzz/FuzzParse plus the shapes below.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","version":"1.0.0"}`,
		`{"name":null}`, `[]`, `"x"`, `{"mcpServers":{"s":{"command":1}}}`,
		`{"commands":{"c":{"type":"executable","binary":"${extensionPath}/../x","sha256":{"linux/x64":"z"}}}}`,
		"{\n// c\n}", `{"a":1,}`, "\xef\xbb\xbf{}", `{"settings":[{"envVar":"X"},3]}`,
		`{"contextFileName":["a",["b"]]}`, `{"plugins":{"p":{"sandbox":{"read":[1]}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, problems, err := Parse(data)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("non-syntax error %T", err)
			}
			return
		}
		_ = problems.Error()
		m.Resolved(Expander{Vars: Vars{ExtensionPath: "/e"}})
	})
}

// FuzzExpand: variable expansion never panics and leaves strings without '$' unchanged.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"${extensionPath}/x", "$A ${B:-c} ${", "$", "${:-}", "${/}${pathSeparator}", "$$A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Expander{Vars: Vars{ExtensionPath: "/e", Platform: Platform{OS: "linux", Arch: "x64"}},
			Lookups: []Lookup{func(n string) (string, bool) { return "v", n == "A" }}}
		out := e.Expand(s)
		if !containsDollar(s) && out != s {
			t.Fatalf("Expand(%q) = %q changed a string without $", s, out)
		}
	})
}

func containsDollar(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			return true
		}
	}
	return false
}
