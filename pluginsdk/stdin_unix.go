//go:build unix

package pluginsdk

import (
	"os"
	"syscall"
)

func redirectStdin(f *os.File) { syscall.Dup2(int(f.Fd()), 0) }
