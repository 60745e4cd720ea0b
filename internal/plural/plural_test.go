package plural

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		noun string
		want string
	}{
		{0, "extension", "0 extensions"},
		{1, "extension", "1 extension"},
		{2, "extension command", "2 extension commands"},
		{-1, "file", "-1 files"},
	}
	for _, tt := range tests {
		if got := Count(tt.n, tt.noun); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
	if got := Of(1, "match", "matches"); got != "1 match" {
		t.Errorf("Of(1) = %q", got)
	}
	if got := Of(3, "match", "matches"); got != "3 matches" {
		t.Errorf("Of(3) = %q", got)
	}
}
