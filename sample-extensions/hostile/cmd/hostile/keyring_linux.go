package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// readKey reads the user key name from the session keyring.
func readKey(arg string) (string, bool) {
	id, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", arg, 0)
	if err != nil {
		return "BLOCKED: finding the key " + arg + " in the session keyring: " + err.Error(), false
	}
	buf := make([]byte, 256)
	n, err := unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0)
	if err != nil {
		return "BLOCKED: reading the key " + arg + ": " + err.Error(), false
	}
	return fmt.Sprintf("ALLOWED: read the key %s: %s", arg, buf[:min(n, len(buf))]), true
}

// withKey runs argv (not sandboxed: the user's side of a test) in a session keyring of its
// own holding the user key name = value, as a Kerberos KEYRING: cache holds a ticket; the
// keyring goes when the session's last process ends.
func withKey(name, value string, argv []string) {
	runtime.LockOSThread() // a keyring is the thread's until exec
	if _, err := unix.KeyctlJoinSessionKeyring("gem-test-" + strconv.Itoa(os.Getpid())); err != nil {
		fmt.Fprintln(os.Stderr, "hostile with-key:", err)
		os.Exit(2)
	}
	if _, err := unix.AddKey("user", name, []byte(value), unix.KEY_SPEC_SESSION_KEYRING); err != nil {
		fmt.Fprintln(os.Stderr, "hostile with-key:", err)
		os.Exit(2)
	}
	path, err := exec.LookPath(argv[0])
	if err == nil {
		err = syscall.Exec(path, argv, os.Environ())
	}
	fmt.Fprintln(os.Stderr, "hostile with-key:", err)
	os.Exit(2)
}
