package sandbox

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		b        Backoff
		failures int
		want     time.Duration
	}{
		{"none", Backoff{}, 0, 0},
		{"default first", Backoff{}, 1, 250 * ms},
		{"default doubles", Backoff{}, 3, time.Second},
		{"default cap", Backoff{}, 9, 8 * time.Second},
		{"own first", Backoff{First: 500 * ms}, 2, time.Second},
		{"own cap", Backoff{First: 500 * ms, Cap: 3 * time.Second}, 4, 3 * time.Second},
		{"many failures do not overflow", Backoff{}, 200, 8 * time.Second},
	}
	for _, tt := range tests {
		b := tt.b
		for range tt.failures {
			b.Failed()
		}
		if got := b.Delay(); got != tt.want {
			t.Errorf("%s: Delay() = %v, want %v", tt.name, got, tt.want)
		}
		if r := b.Remaining(); r > tt.want || (tt.want > 100*ms && r < tt.want-100*ms) {
			t.Errorf("%s: Remaining() = %v right after the failure, want about %v", tt.name, r, tt.want)
		}
		b.Succeeded()
		if b.Delay() != 0 || b.Remaining() != 0 || b.Failures() != 0 {
			t.Errorf("%s: a success does not reset: %+v", tt.name, b)
		}
	}
}
