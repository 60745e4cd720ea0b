//go:build unix && !linux

package sandbox

import "os"

// helperImage: elsewhere the helper is executed by its path (no /proc/self/fd to exec).
func helperImage() *os.File { return nil }

func helperExecPath(int) string { return helperPath() }

// HelperHandover: nothing to hand over where the helper runs by its path.
func HelperHandover() string { return "" }
