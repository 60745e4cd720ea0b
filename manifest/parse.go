package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// SyntaxError is a JSON syntax error with its position (1-based line and column, columns
// counted in characters).
type SyntaxError struct {
	Line, Column int
	Msg          string // the parser's message
	Hint         string // what to do, when the mistake is a common one
}

func (e *SyntaxError) Error() string {
	s := fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Parse decodes a manifest. A syntax error is returned as *SyntaxError; otherwise the
// manifest is returned with the problems found while reading its fields' types (never nil
// manifest when err is nil).
func Parse(data []byte) (*Manifest, Problems, error) {
	if bytes.HasPrefix(data, bom) {
		return nil, nil, &SyntaxError{Line: 1, Column: 1, Msg: "byte-order mark before the JSON value",
			Hint: "save the file as UTF-8 without BOM; Gemini CLI rejects it too"}
	}
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, nil, syntaxError(data, err)
	}
	m, problems := Load(raw)
	return m, problems, nil
}

func syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &SyntaxError{Line: 1, Column: 1, Msg: err.Error()}
	}
	off := int(se.Offset)
	if off > len(data) {
		off = len(data)
	}
	// Offset counts the bytes read, including the offending one.
	at := off - 1
	if at < 0 || se.Error() == "unexpected end of JSON input" {
		at = off
	}
	line, col := Position(data, at)
	e := &SyntaxError{Line: line, Column: col, Msg: se.Error()}
	e.Hint = hintFor(data, at, e.Msg)
	return e
}

// Position converts a byte offset into a 1-based line and character column.
func Position(data []byte, offset int) (line, col int) {
	if offset > len(data) {
		offset = len(data)
	}
	line, col = 1, 1
	for i := 0; i < offset; {
		r, size := utf8.DecodeRune(data[i:])
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
		i += size
	}
	return line, col
}

func hintFor(data []byte, at int, msg string) string {
	if at >= 0 && at < len(data) {
		switch data[at] {
		case '/', '#':
			return "comments are not allowed in gemini-extension.json; remove them"
		case '}', ']':
			// A closing bracket where a value or key was expected: look back for a comma.
			for i := at - 1; i >= 0; i-- {
				c := data[i]
				if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
					continue
				}
				if c == ',' {
					return "trailing comma before " + string(data[at]) + "; remove it"
				}
				break
			}
		case '\'':
			return "JSON strings need double quotes"
		}
	}
	if msg == "unexpected end of JSON input" {
		if len(bytes.TrimSpace(data)) == 0 {
			return "the file is empty; it needs at least {\"name\": …, \"version\": …}"
		}
		return "the file ends early: a bracket or quote is not closed"
	}
	return ""
}
