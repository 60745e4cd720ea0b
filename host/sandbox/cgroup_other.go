//go:build unix && !linux

package sandbox

import "errors"

func pidsCgroup(uint64) error { return errors.New("no cgroups here") }

func killCgroup(int) {}

func cgroupsUsable() bool { return false }
