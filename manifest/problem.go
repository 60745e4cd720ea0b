package manifest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Severity says whether a problem stops an install (Error) or is only reported (Warning).
type Severity int

const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalText renders the severity as "error" or "warning" in JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Problem is one thing wrong with a manifest: where (the JSON path of the field, such as
// commands.gallery.binary), the value found, and what is wanted.
type Problem struct {
	Severity Severity `json:"severity"`
	File     string   `json:"file,omitempty"`
	Path     string   `json:"path"`
	Value    string   `json:"value,omitempty"`
	Want     string   `json:"message"`
}

// String is the problem on one line: "file: severity: path: want (found value)"; the value
// is left out when the want names it ("… "X.md" not found …", never "not found … (found …)").
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		b.WriteString(": ")
	}
	b.WriteString(p.Severity.String())
	b.WriteString(": ")
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Want)
	if p.Value != "" && !strings.Contains(p.Want, p.Value) { // a want may name the value itself
		b.WriteString(" (found ")
		b.WriteString(p.Value)
		b.WriteString(")")
	}
	return b.String()
}

// Problems is a list of problems in the order they were found.
type Problems []Problem

// HasErrors reports whether any problem is an error.
func (ps Problems) HasErrors() bool {
	for _, p := range ps {
		if p.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns only the errors.
func (ps Problems) Errors() Problems {
	var out Problems
	for _, p := range ps {
		if p.Severity == Error {
			out = append(out, p)
		}
	}
	return out
}

// Without is ps without the problems of the field at path.
func (ps Problems) Without(path string) Problems {
	var out Problems
	for _, p := range ps {
		if p.Path != path {
			out = append(out, p)
		}
	}
	return out
}

// WithFile returns a copy with File set on every problem.
func (ps Problems) WithFile(file string) Problems {
	out := make(Problems, len(ps))
	for i, p := range ps {
		p.File = file
		out[i] = p
	}
	return out
}

// Error joins the problems into one message, so Problems can be returned as an error.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// render shows a decoded JSON value briefly, as JSON, for a problem's Value.
func render(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// jsonType names a decoded JSON value's type the way a user reads it.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
