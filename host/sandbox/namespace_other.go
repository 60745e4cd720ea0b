//go:build unix && !linux

package sandbox

import (
	"io"
	"syscall"
)

// View is Linux's (mount namespaces).
type View struct {
	Keep    []string `json:"keep,omitempty"`
	Protect []string `json:"protect,omitempty"`
	Rebind  []string `json:"rebind,omitempty"`
}

// Namespaces: none here.
func Namespaces() (bool, string) { return false, "namespaces are Linux's" }

func viewOf(Policy, Plan) *View                        { return nil }
func namespaceAttrs(*syscall.SysProcAttr, bool)        {}
func denyTerminalInjection(noNet, families bool) error { return nil }
func seccompUsable() bool                              { return false }
func guardUsable() bool                                { return false }

func harden(p Policy) (int, int, error) {
	_, err := Apply(p)
	return -1, -1, err
}

func runGuarded(Policy, int, int, string, []string, []string, io.Writer) int { return 126 }
