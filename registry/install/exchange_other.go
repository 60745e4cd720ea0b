//go:build !linux

package install

import "os"

// exchange swaps two paths with three renames. A crash in between is repaired by
// recoverJournal on the next run (the journal is written before the first rename).
func exchange(a, b string) error {
	tmp := b + ".gem-swap"
	if err := os.Rename(b, tmp); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		os.Rename(tmp, b)
		return err
	}
	return os.Rename(tmp, a)
}
