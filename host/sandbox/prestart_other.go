//go:build unix && !linux

package sandbox

import (
	"io"
)

const prestartArg = "--wait"

// Prestarted: helpers are prestarted on Linux only (namespaces are Linux's).
type Prestarted struct{}

// Prestart: nil here (programs run in place).
func Prestart(stdin io.Reader, stdout, stderr io.Writer) *Prestarted { return nil }

// Discard does nothing here.
func (h *Prestarted) Discard() {}

func runPrestarted(Program, *Prestarted, Plan) (int, error) { return 126, ErrNotEnforced }

func helperWait(io.Writer) int { return 126 }
