//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

// The amd64 calls without an "at" form (arm64 and newer ABIs have only the "at" ones).
var (
	legacyNotify = []uint32{unix.SYS_CREAT, unix.SYS_MKDIR, unix.SYS_MKNOD, unix.SYS_LINK, unix.SYS_SYMLINK,
		unix.SYS_RENAME, unix.SYS_RENAMEAT, unix.SYS_UNLINK, unix.SYS_RMDIR, unix.SYS_CHMOD}
	legacyOpen = map[uint32]int{unix.SYS_OPEN: 1}
)

// legacyChmod is chmod(path, mode) where the ABI has it (the mode its second argument);
// legacyChown chown and lchown.
var (
	legacyChmod = []uint32{unix.SYS_CHMOD}
	legacyChown = []uint32{unix.SYS_CHOWN, unix.SYS_LCHOWN}
)

const guardArch = true

// decodeLegacy turns an amd64 legacy call into its "at" form.
func decodeLegacy(nr int32, a [6]uint64) (op guardOp, ok bool) {
	atFDCWD := int32(unix.AT_FDCWD)
	cwd := uint64(uint32(atFDCWD))
	switch uint32(nr) {
	case unix.SYS_OPEN:
		return decodeAt(unix.SYS_OPENAT, [6]uint64{cwd, a[0], a[1], a[2]}), true
	case unix.SYS_CREAT:
		return decodeAt(unix.SYS_OPENAT, [6]uint64{cwd, a[0], unix.O_CREAT | unix.O_WRONLY | unix.O_TRUNC, a[1]}), true
	case unix.SYS_MKDIR:
		return decodeAt(unix.SYS_MKDIRAT, [6]uint64{cwd, a[0], a[1]}), true
	case unix.SYS_MKNOD:
		return decodeAt(unix.SYS_MKNODAT, [6]uint64{cwd, a[0], a[1], a[2]}), true
	case unix.SYS_LINK:
		return decodeAt(unix.SYS_LINKAT, [6]uint64{cwd, a[0], cwd, a[1], 0}), true
	case unix.SYS_SYMLINK:
		return decodeAt(unix.SYS_SYMLINKAT, [6]uint64{a[0], cwd, a[1]}), true
	case unix.SYS_RENAME:
		return decodeAt(unix.SYS_RENAMEAT2, [6]uint64{cwd, a[0], cwd, a[1], 0}), true
	case unix.SYS_RENAMEAT:
		return decodeAt(unix.SYS_RENAMEAT2, [6]uint64{a[0], a[1], a[2], a[3], 0}), true
	case unix.SYS_UNLINK:
		return decodeAt(unix.SYS_UNLINKAT, [6]uint64{cwd, a[0], 0}), true
	case unix.SYS_RMDIR:
		return decodeAt(unix.SYS_UNLINKAT, [6]uint64{cwd, a[0], unix.AT_REMOVEDIR}), true
	case unix.SYS_CHMOD:
		return decodeAt(unix.SYS_FCHMODAT, [6]uint64{cwd, a[0], a[1]}), true
	case unix.SYS_CHOWN:
		return decodeAt(unix.SYS_FCHOWNAT, [6]uint64{cwd, a[0], a[1], a[2], 0}), true
	case unix.SYS_LCHOWN:
		return decodeAt(unix.SYS_FCHOWNAT, [6]uint64{cwd, a[0], a[1], a[2], unix.AT_SYMLINK_NOFOLLOW}), true
	}
	return guardOp{}, false
}
