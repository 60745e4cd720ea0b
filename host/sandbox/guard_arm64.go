//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

// arm64 has only the "at" calls, and renameat beside renameat2.
var (
	legacyNotify = []uint32{unix.SYS_RENAMEAT}
	legacyOpen   map[uint32]int
)

// legacyChmod is chmod(path, mode) where the ABI has it (the mode its second argument).
var legacyChmod = []uint32(nil)

// legacyChown is chown and lchown where the ABI has them.
var legacyChown = []uint32(nil)

const guardArch = true

func decodeLegacy(nr int32, a [6]uint64) (guardOp, bool) {
	if uint32(nr) == unix.SYS_RENAMEAT {
		return decodeAt(unix.SYS_RENAMEAT2, [6]uint64{a[0], a[1], a[2], a[3], 0}), true
	}
	return guardOp{}, false
}
