package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/gemhost/gem/internal/plural"
)

func (c *coreBackend) replace(a replaceArgs) (string, *editStat, error) {
	rel, err := c.rel(a.FilePath)
	if err != nil {
		return "", nil, err
	}
	data, err := c.read(rel)
	if errors.Is(err, fs.ErrNotExist) && a.OldString == "" {
		return c.writeFile(writeFileArgs{FilePath: a.FilePath, Content: a.NewString})
	}
	if err != nil {
		return "", nil, err
	}
	if a.OldString == "" {
		return "", nil, fmt.Errorf("old_string is empty but %s exists: give the text to replace", c.abs(rel))
	}
	n := strings.Count(string(data), a.OldString)
	switch {
	case n == 0:
		return "", nil, fmt.Errorf("old_string is not in %s: give the exact text, with its whitespace (read_file shows it)", c.abs(rel))
	case a.AllowMultiple:
	case a.ExpectedReplacements > 0 && n != a.ExpectedReplacements:
		return "", nil, fmt.Errorf("old_string occurs %s in %s, expected %d: give more context, or allow_multiple", plural.Count(n, "time"), c.abs(rel), a.ExpectedReplacements)
	case a.ExpectedReplacements == 0 && n != 1:
		return "", nil, fmt.Errorf("old_string occurs %s in %s, expected 1: give more context, or allow_multiple to replace every one", plural.Count(n, "time"), c.abs(rel))
	}
	text := strings.ReplaceAll(string(data), a.OldString, a.NewString)
	if err := c.writeAtomic(rel, []byte(text)); err != nil {
		return "", nil, c.fsError(rel, err)
	}
	return fmt.Sprintf("replaced %s in %s", plural.Count(n, "occurrence"), c.abs(rel)), diffStat(c.abs(rel), string(data), text), nil
}
