//go:build !linux

package main

import (
	"fmt"
	"os"
)

// readKey: the kernel keyring is Linux's.
func readKey(arg string) (string, bool) {
	return "BLOCKED: no kernel keyring here (" + arg + ")", false
}

// withKey: the kernel keyring is Linux's.
func withKey(name, value string, argv []string) {
	fmt.Fprintln(os.Stderr, "hostile with-key: no kernel keyring here")
	os.Exit(2)
}
