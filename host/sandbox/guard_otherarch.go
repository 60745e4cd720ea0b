//go:build linux && !amd64 && !arm64

package sandbox

// The guard is built for amd64 and arm64; elsewhere a program granted the workspace gets
// the read-only mounts of its protected entries only (and gem says so).
var (
	legacyNotify []uint32
	legacyOpen   map[uint32]int
)

// legacyChmod is chmod(path, mode) where the ABI has it (the mode its second argument).
var legacyChmod = []uint32(nil)

// legacyChown is chown and lchown where the ABI has them.
var legacyChown = []uint32(nil)

const guardArch = false

func decodeLegacy(nr int32, a [6]uint64) (guardOp, bool) { return guardOp{}, false }
