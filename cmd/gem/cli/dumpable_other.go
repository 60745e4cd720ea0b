//go:build !linux

package cli

func hideProcess() {}
