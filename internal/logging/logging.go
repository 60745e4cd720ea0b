// Package logging owns gem's structured log: one go-hclog root logger writing JSON lines to
// $GEM_HOME/logs/gem.log (never to the terminal). The file is opened on the first write, so
// a command that logs nothing costs nothing. GEM_LOG=debug|trace|info|warn|error sets the level.
package logging

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/internal/config"
)

// lazyFile opens its file on the first Write.
type lazyFile struct {
	path string
	once sync.Once
	f    *os.File
}

func (l *lazyFile) Write(p []byte) (int, error) {
	l.once.Do(func() {
		if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
			return
		}
		l.f, _ = os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	})
	if l.f == nil {
		return len(p), nil // logging must never break a command
	}
	return l.f.Write(p)
}

// New returns the root logger writing to dir/gem.log.
func New(dir string) hclog.Logger {
	level := hclog.Info
	if v := config.Getenv("GEM_LOG"); v != "" {
		level = hclog.LevelFromString(v)
		if level == hclog.NoLevel {
			level = hclog.Info
		}
	}
	return hclog.New(&hclog.LoggerOptions{
		Name:       "gem",
		Level:      level,
		Output:     &lazyFile{path: filepath.Join(dir, "gem.log")},
		JSONFormat: true,
	})
}
