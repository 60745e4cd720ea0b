package version

import (
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		cmp  int
		ok   bool
	}{
		{"1.0.0", "1.0.1", -1, true}, {"1.10.0", "1.9.0", 1, true}, {"v1.2.3", "1.2.3", 0, true},
		{"1.0.0-rc.1", "1.0.0", -1, true}, {"1.2", "1.2.0", 0, true}, {"abc", "abd", -1, false},
	}
	for _, tt := range tests {
		cmp, ok := Compare(tt.a, tt.b)
		if cmp != tt.cmp || ok != tt.ok {
			t.Errorf("Compare(%q,%q) = %d,%v want %d,%v", tt.a, tt.b, cmp, ok, tt.cmp, tt.ok)
		}
	}
}

func TestCheckEngine(t *testing.T) {
	tests := []struct{ constraint, gem, wantErr string }{
		{"", "0.1.0", ""}, {">=0.1.0", "0.2.0", ""}, {">=1.0.0", "0.2.0", "needs gem >=1.0.0, but this is gem 0.2.0"},
		{">=1.0.0", "dev", ""}, {"bogus", "1.0.0", "is not a version constraint"},
	}
	for _, tt := range tests {
		err := CheckEngine("x", tt.constraint, tt.gem)
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("CheckEngine(%q,%q) = %v, want %q", tt.constraint, tt.gem, err, tt.wantErr)
		}
	}
	if !IsStrict("1.2.3-beta.1+b") || IsStrict("1.2") || IsStrict("v1.2.3") {
		t.Error("IsStrict")
	}
}
