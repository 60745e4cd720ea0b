package commands

import (
	"slices"
	"testing"
)

func TestPrependPath(t *testing.T) {
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=/h", "PATH=/usr/bin:/bin"}, "PATH=/ext/bin:/usr/bin:/bin"},
		{[]string{"HOME=/h"}, "PATH=/ext/bin"},
		{[]string{"PATH="}, "PATH=/ext/bin"},
	}
	for _, tt := range tests {
		got := prependPath(tt.env, "/ext/bin")
		if !slices.Contains(got, tt.want) || len(slices.DeleteFunc(slices.Clone(got), func(kv string) bool { return len(kv) < 5 || kv[:5] != "PATH=" })) != 1 {
			t.Errorf("%v: %v", tt.env, got)
		}
	}
}
