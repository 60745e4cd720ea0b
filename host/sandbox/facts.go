//go:build unix

package sandbox

// ProbeFacts are this machine's facts: the kernel's, probed once per gem process, and the
// switches and homes, read at each call (a caller or a test may change HOME).
func ProbeFacts() Facts {
	f := machineFacts()
	f.Helper, f.Disabled = helperPath(), Disabled()
	addPathFacts(&f)
	return f
}
