package frontmatter

import "testing"

func TestSplit(t *testing.T) {
	tests := []struct {
		name, text, front, body string
		ok                      bool
	}{
		{"plain", "---\nname: a\n---\nbody\n", "name: a", "\nbody\n", true},
		{"crlf and bom", "\ufeff---\r\nname: a\r\n---\r\nbody", "name: a\r", "\nbody", true},
		{"none", "body only", "", "", false},
		{"not closed", "---\nname: a\nbody", "", "", false},
	}
	for _, tt := range tests {
		front, body, ok := Split(tt.text)
		if front != tt.front || body != tt.body || ok != tt.ok {
			t.Errorf("%s: %q %q %v", tt.name, front, body, ok)
		}
	}
}

func TestFields(t *testing.T) {
	f := Fields("name: tidy\ndescription: \"Tidies: things\"\ntools:\n  - read_file\nmodel: 'x'")
	if f["name"] != "tidy" || f["description"] != "Tidies: things" || f["model"] != "x" || f["tools"] != "" || len(f) != 4 {
		t.Errorf("%q", f)
	}
	if Field("---\ndescription: d\n---\n", "description") != "d" || Field("no front", "description") != "" {
		t.Error("Field")
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("---\na: b\n---\nbody")
	f.Fuzz(func(t *testing.T, text string) {
		front, body, ok := Split(text)
		if !ok && (front != "" || body != "") {
			t.Fatal("parts without front matter")
		}
		Fields(front)
	})
}
