package tools

import (
	"fmt"
)

func (c *coreBackend) writeFile(a writeFileArgs) (string, *editStat, error) {
	rel, err := c.rel(a.FilePath)
	if err != nil {
		return "", nil, err
	}
	if err := c.writable(rel); err != nil {
		return "", nil, err
	}
	before, _ := c.read(rel) // nothing when it is new
	if err := c.writeAtomic(rel, []byte(a.Content)); err != nil {
		return "", nil, c.fsError(rel, err)
	}
	return fmt.Sprintf("wrote %s (%d bytes)", c.abs(rel), len(a.Content)), diffStat(c.abs(rel), string(before), a.Content), nil
}
