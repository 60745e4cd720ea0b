//go:build !linux

package registry

import "os"

func openBeneath(root, rel string) (*os.File, error) { return openBeneathPortable(root, rel) }
