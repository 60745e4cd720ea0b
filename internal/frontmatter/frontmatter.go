// Package frontmatter splits the "---" front matter of a Markdown file (agents, skills,
// commands of Gemini CLI and Claude Code) from its body, and reads its simple
// "key: value" lines. Callers that need YAML proper decode Split's front themselves.
package frontmatter

import "strings"

// Split splits "---\n<front>\n---\n<body>" (a byte-order mark and CRLF line ends allowed);
// ok is false when text has no front matter, or it is not closed.
func Split(text string) (front, body string, ok bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	rest, found := strings.CutPrefix(text, "---\n")
	if !found {
		rest, found = strings.CutPrefix(text, "---\r\n")
	}
	if !found {
		return "", "", false
	}
	i := strings.Index(rest, "\n---")
	if i < 0 {
		return "", "", false
	}
	front, body = rest[:i], rest[i+4:]
	body = strings.TrimLeft(strings.TrimPrefix(body, "\r"), "-")
	return front, body, true
}

// Fields are front's "key: value" lines, values unquoted; other lines are skipped.
func Fields(front string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(front, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, " ") {
			out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return out
}

// Field is the value of key in text's front matter, or "".
func Field(text, key string) string {
	front, _, ok := Split(text)
	if !ok {
		return ""
	}
	return Fields(front)[key]
}
