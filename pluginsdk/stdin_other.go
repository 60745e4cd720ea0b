//go:build !unix

package pluginsdk

import "os"

func redirectStdin(*os.File) {}
