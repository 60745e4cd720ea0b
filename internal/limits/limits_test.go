package limits

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestTruncate(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"0123456789abc", 10, "0123456789\n[gem: output truncated: 10 of 13 bytes kept (the limit is 10)]"},
		{"ééééé", 3, "é\n[gem: output truncated: 2 of 10 bytes kept (the limit is 3)]"},
	}
	for _, c := range cases {
		if got := Truncate(c.in, c.max); got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestBuffer(t *testing.T) {
	b := &Buffer{Max: 4}
	io.WriteString(b, "ab")
	io.WriteString(b, "cdef")
	io.WriteString(b, "gh")
	if string(b.Bytes()) != "abcd" || !b.Truncated() || !strings.Contains(b.String(), "4 bytes dropped") {
		t.Errorf("buffer: %q %v %q", b.Bytes(), b.Truncated(), b.String())
	}
}

func TestLineReader(t *testing.T) {
	ok := &LineReader{R: strings.NewReader("abc\ndef\n"), Max: 3}
	if data, err := io.ReadAll(ok); err != nil || string(data) != "abc\ndef\n" {
		t.Errorf("within the limit: %q %v", data, err)
	}
	long := &LineReader{R: strings.NewReader("abc\n" + strings.Repeat("x", 10)), Max: 3}
	if _, err := io.ReadAll(long); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("over the limit: %v", err)
	}
}
