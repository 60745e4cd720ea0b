//go:build unix && !linux

package sandbox

// LandlockABI is 0: Landlock is Linux's.
func LandlockABI() int { return 0 }

// Apply can enforce nothing here but reports it; a strict policy fails.
func Apply(p Policy) (Report, error) {
	r := Report{Missing: []string{"filesystem rules (no Landlock on this system)", "network rules (no Landlock on this system)"}}
	return r, strictError(p, r)
}
