// Package limits holds the caps on what extensions send back to gem, in one place (the
// table of limits in docs/threat-model.md is their doc): a plugin, an MCP server, a hook or a prompt
// command's shell must not be able to grow gem's memory without bound.
package limits

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

const (
	// ToolResult is the most text of one tool result gem keeps (for the model and the
	// user); the rest is cut and the cut is said in the result.
	ToolResult = 1 << 20
	// Message is the largest gRPC message a plugin may send, and the longest JSON-RPC line
	// an MCP stdio server may write.
	Message = 16 << 20
	// HookOutput is the most of a hook's stdout gem reads (its JSON decision).
	HookOutput = 1 << 20
	// ShellOutput is the most of a prompt command's !{…} output gem includes in a prompt.
	ShellOutput = 1 << 20
)

// Truncate cuts s to at most max bytes (at a UTF-8 boundary) and says so at the end.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[gem: output truncated: %d of %d bytes kept (the limit is %d)]", cut, len(s), max)
}

// Buffer keeps the first max bytes written to it and counts the rest.
type Buffer struct {
	Max     int
	buf     bytes.Buffer
	dropped int64
}

func (b *Buffer) Write(p []byte) (int, error) {
	room := b.Max - b.buf.Len()
	if room > 0 {
		keep := min(room, len(p))
		b.buf.Write(p[:keep])
		b.dropped += int64(len(p) - keep)
	} else {
		b.dropped += int64(len(p))
	}
	return len(p), nil
}

// Bytes is what was kept.
func (b *Buffer) Bytes() []byte { return b.buf.Bytes() }

// Truncated reports whether anything was dropped.
func (b *Buffer) Truncated() bool { return b.dropped > 0 }

// String is what was kept, with a note when something was dropped.
func (b *Buffer) String() string {
	if b.dropped == 0 {
		return b.buf.String()
	}
	return b.buf.String() + fmt.Sprintf("\n[gem: output truncated: %d bytes dropped (the limit is %d)]", b.dropped, b.Max)
}

// ErrLineTooLong is a line over a LineReader's limit.
var ErrLineTooLong = errors.New("a message longer than gem's limit")

// LineReader passes r through and fails once a line (bytes between newlines) exceeds max.
type LineReader struct {
	R    io.Reader
	Max  int
	line int
}

func (l *LineReader) Read(p []byte) (int, error) {
	n, err := l.R.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			l.line = 0
			continue
		}
		l.line++
		if l.line > l.Max {
			return 0, fmt.Errorf("%w (%d bytes)", ErrLineTooLong, l.Max)
		}
	}
	return n, err
}
