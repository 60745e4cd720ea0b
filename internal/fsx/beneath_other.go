//go:build !linux

package fsx

import "os"

func openBeneath(root, rel string) (*os.File, error) { return openBeneathPortable(root, rel) }
