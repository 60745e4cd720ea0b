package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/settings"
)

// memoryHeader is Gemini CLI's section of remembered facts in the user's GEMINI.md.
const memoryHeader = "## Gemini Added Memories"

func (c *coreBackend) saveMemory(a saveMemoryArgs) (string, error) {
	return SaveMemory(c.memoryFile, a.Fact)
}

// MemoryFile is the user's context file facts are remembered in: ~/.gemini/GEMINI.md, or
// the first of the settings' context.fileName.
func MemoryFile(env registry.Env, st *settings.Settings) string {
	if st != nil && len(st.ContextFiles) > 0 {
		return filepath.Join(env.GeminiDir(), st.ContextFiles[0])
	}
	return env.GeminiMemoryFile()
}

// memoryMu makes the read-modify-write of the memory file one at a time within gem.
var memoryMu sync.Mutex

// SaveMemory adds fact under "## Gemini Added Memories" of the context file (the user's
// GEMINI.md), as save_memory and /memory add do, and says what it did.
func SaveMemory(file, fact string) (string, error) {
	fact = strings.TrimSpace(strings.ReplaceAll(fact, "\n", " "))
	if fact == "" {
		return "", errors.New("fact is empty: give the fact to remember")
	}
	memoryMu.Lock()
	defer memoryMu.Unlock()
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	text := string(data)
	if !strings.Contains(text, memoryHeader) {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		text += memoryHeader + "\n"
	} else if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += "- " + fact + "\n"
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	if err := fsx.WriteFileAtomic(file, []byte(text), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf("remembered in %s: %s", file, fact), nil
}
