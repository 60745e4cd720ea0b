package tools

import (
	"encoding/json"
	"testing"
)

func TestShellLikeSchema(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   bool
	}{
		{`{"type":"object","properties":{"command":{"type":"string"}}}`, true},
		{`{"type":"object","properties":{"command":{"type":["string","null"]}}}`, true},
		{`{"type":"object","properties":{"command":{"type":"array"}}}`, false},
		{`{"type":"object","properties":{"cmd":{"type":"string"}}}`, false},
		{`{"type":"object"}`, false},
		{`not json`, false},
		{`{"properties":{"command":{}}}`, false},
	} {
		if got := ShellLikeSchema(json.RawMessage(c.schema)); got != c.want {
			t.Errorf("ShellLikeSchema(%s) = %v, want %v", c.schema, got, c.want)
		}
	}
	if got := firstShellLike([]Spec{{Name: "read", InputSchema: json.RawMessage(`{"properties":{"path":{"type":"string"}}}`)}, {Name: "run", InputSchema: json.RawMessage(`{"properties":{"command":{"type":"string"}}}`)}}); got != "run" {
		t.Errorf("firstShellLike = %q, want run", got)
	}
}
