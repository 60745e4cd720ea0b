// Package version owns semantic versions for gem: parsing an extension's `version`, comparing
// versions for `gem ext update`, and checking `engines.gem` constraints. It wraps
// Masterminds/semver; it is its own package so that binaries on the hot path (the `gem` front)
// do not pay that library's package initialisation.
package version

import (
	"fmt"

	"github.com/Masterminds/semver/v3"
)

// IsStrict reports whether v is a strict semantic version (MAJOR.MINOR.PATCH, optional
// pre-release and build), as `gem ext validate` wants.
func IsStrict(v string) bool {
	_, err := semver.StrictNewVersion(v)
	return err == nil
}

// Compare compares two extension versions. Both are parsed leniently ("1.2", "v1.2.3");
// when either is not a version at all they are compared as strings, and ok is false.
func Compare(a, b string) (cmp int, ok bool) {
	va, errA := semver.NewVersion(a)
	vb, errB := semver.NewVersion(b)
	if errA != nil || errB != nil {
		switch {
		case a == b:
			return 0, false
		case a < b:
			return -1, false
		default:
			return 1, false
		}
	}
	return va.Compare(vb), true
}

// ParseConstraint checks an `engines.gem` constraint such as ">=0.3.0 <2".
func ParseConstraint(c string) error {
	_, err := semver.NewConstraint(c)
	return err
}

// CheckEngine returns an error, naming the extension, the constraint and this gem's version,
// when gemVersion does not satisfy constraint. A development build ("dev", or anything that
// is not a version) satisfies every constraint.
func CheckEngine(extension, constraint, gemVersion string) error {
	if constraint == "" {
		return nil
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return fmt.Errorf("extension %q: engines.gem %q is not a version constraint: %w", extension, constraint, err)
	}
	v, err := semver.NewVersion(gemVersion)
	if err != nil {
		return nil
	}
	if !c.Check(v) {
		return fmt.Errorf("extension %q needs gem %s, but this is gem %s: upgrade gem, or install a version of the extension made for this gem", extension, constraint, gemVersion)
	}
	return nil
}
