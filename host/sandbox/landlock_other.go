//go:build unix && !linux

package sandbox

// LandlockABI is 0: Landlock is Linux's.
func LandlockABI() int { return 0 }
