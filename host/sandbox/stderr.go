package sandbox

import (
	"bytes"
	"strings"
	"sync"
)

// StderrTail keeps what a child (plugin, MCP server) last wrote to stderr, for crash reports: the last 16 KiB,
// and the start of a Go panic or fatal error, which is what explains a crash and which a
// long goroutine dump would otherwise push out.
type StderrTail struct {
	mu    sync.Mutex
	buf   []byte
	panic []byte // from "panic:" or "fatal error:" on, up to 2 KiB
}

const tailBytes = 16 << 10

func (t *StderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.panic == nil {
		if i := panicStart(p); i >= 0 {
			t.panic = append([]byte{}, p[i:min(len(p), i+2048)]...)
		}
	} else if len(t.panic) < 2048 {
		t.panic = append(t.panic, p[:min(len(p), 2048-len(t.panic))]...)
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func panicStart(p []byte) int {
	for _, marker := range []string{"panic: ", "fatal error: "} {
		if i := bytes.Index(p, []byte(marker)); i >= 0 && (i == 0 || p[i-1] == '\n') {
			return i
		}
	}
	return -1
}

// Lines returns the lines worth showing: from the panic on when there was one, else the
// last n lines.
func (t *StderrTail) Lines(n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	src := t.buf
	if t.panic != nil {
		src = t.panic
	}
	all := strings.Split(strings.TrimRight(string(src), "\n"), "\n")
	if len(all) == 1 && all[0] == "" {
		return nil
	}
	if t.panic != nil {
		return all[:min(n, len(all))]
	}
	return all[max(0, len(all)-n):]
}

// Describe is the tail for an error message: "" when the plugin wrote nothing.
func (t *StderrTail) Describe() string {
	if t == nil {
		return ""
	}
	lines := t.Lines(12)
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("; its last stderr lines:")
	for _, l := range lines {
		if len(l) > 300 {
			l = l[:300] + "…"
		}
		b.WriteString("\n  | " + l)
	}
	return b.String()
}
