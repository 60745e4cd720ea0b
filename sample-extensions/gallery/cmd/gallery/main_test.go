package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestGallery(t *testing.T) {
	t.Setenv("GALLERY_INDEX", "../../catalog.json")
	tests := []struct {
		args    []string
		want    []string // substrings of stdout
		wantErr string
	}{
		{[]string{"list"}, []string{"NAME", "chrome-devtools-mcp", "terraform"}, ""},
		{[]string{"search", "terraform", "aws"}, []string{"terraform"}, ""},
		{[]string{"search", "nothing-like-this"}, []string{"No extension matches"}, ""},
		{[]string{"show", "chrome-devtools-mcp"}, []string{"Source:      https://github.com/ChromeDevTools/chrome-devtools-mcp"}, ""},
		{[]string{"show", "chrome"}, nil, "did you mean chrome-devtools-mcp"},
		{[]string{"frobnicate"}, nil, "unknown subcommand"},
		{[]string{"install", "security"}, nil, "add --yes"},
	}
	for _, tt := range tests {
		var out, errw bytes.Buffer
		err := run(tt.args, &out, &errw, strings.NewReader(""))
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%v: error %v, want %q", tt.args, err, tt.wantErr)
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: stdout lacks %q:\n%s", tt.args, w, out.String())
			}
		}
	}
	var out bytes.Buffer
	if err := run([]string{"list", "--json"}, &out, &out, nil); err != nil {
		t.Fatal(err)
	}
	var es []entry
	if err := json.Unmarshal(out.Bytes(), &es); err != nil || len(es) < 30 {
		t.Fatalf("want at least 30 entries as JSON, got %d (%v)", len(es), err)
	}
	for i := 1; i < len(es); i++ {
		if es[i].Stars > es[i-1].Stars {
			t.Fatalf("list is not sorted by stars at %d", i)
		}
	}
}
