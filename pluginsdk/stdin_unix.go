//go:build unix

package pluginsdk

import (
	"os"

	"golang.org/x/sys/unix"
)

func redirectStdin(f *os.File) { unix.Dup2(int(f.Fd()), 0) }
