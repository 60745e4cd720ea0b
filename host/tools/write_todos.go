package tools

import (
	"fmt"
	"strings"
)

func (c *coreBackend) writeTodos(a writeTodosArgs) (string, error) {
	marks := map[string]string{"pending": "[ ]", "in_progress": "[>]", "completed": "[x]", "cancelled": "[-]"}
	var b strings.Builder
	for _, t := range a.Todos {
		mark, ok := marks[t.Status]
		if !ok {
			return "", fmt.Errorf("todo %q: status %q: use pending, in_progress, completed or cancelled", t.Description, t.Status)
		}
		fmt.Fprintf(&b, "%s %s\n", mark, t.Description)
	}
	c.mu.Lock()
	c.todos = a.Todos
	c.mu.Unlock()
	if b.Len() == 0 {
		return "the todo list is empty", nil
	}
	return b.String(), nil
}
