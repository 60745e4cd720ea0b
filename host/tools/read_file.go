package tools

import (
	"fmt"
	"strings"
)

func (c *coreBackend) readFile(a readFileArgs) (string, []Media, error) {
	if a.EndLine > 0 && a.StartLine > a.EndLine {
		return "", nil, fmt.Errorf("start_line %d is after end_line %d", a.StartLine, a.EndLine)
	}
	var data []byte
	abs := a.FilePath
	if out, rel, ok, err := c.outputRoot(a.FilePath); ok {
		if err != nil {
			return "", nil, err
		}
		data, err = readIn(out, rel, abs)
		out.Close()
		if err != nil {
			return "", nil, outputError(abs, err)
		}
	} else {
		rel, err := c.rel(a.FilePath)
		if err != nil {
			return "", nil, err
		}
		if data, err = c.read(rel); err != nil {
			return "", nil, err
		}
		abs = c.abs(rel)
	}
	if mime := mediaType(abs, data); mime != "" {
		return fmt.Sprintf("[%s %s, %d bytes: attached]", mime, abs, len(data)), []Media{{MIMEType: mime, Data: data}}, nil
	}
	if isBinary(data) {
		return fmt.Sprintf("[binary file %s, %d bytes]", abs, len(data)), nil, nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var from, to int // lines[from:to]
	switch {
	case a.StartLine > 0 || a.EndLine > 0:
		from = max(a.StartLine, 1) - 1
		to = from + coreMaxLines
		if a.EndLine > 0 {
			to = a.EndLine
		}
	default:
		limit := a.Limit
		if limit <= 0 {
			limit = coreMaxLines
		}
		from, to = a.Offset, a.Offset+limit
	}
	from, to = min(from, len(lines)), min(to, len(lines))
	text := strings.Join(lines[from:to], "")
	if from > 0 || to < len(lines) {
		text = fmt.Sprintf("[lines %d-%d of %d; read more with start_line and end_line]\n", from+1, to, len(lines)) + text
	}
	return text, nil, nil
}
