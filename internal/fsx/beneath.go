package fsx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutside is a path that resolves outside the folder it must stay in.
var ErrOutside = errors.New("resolves outside its folder")

// ReadBeneath reads the file rel inside root, refusing a path (or a symbolic link on the
// way) that leads outside root, what is not a regular file (a FIFO or a device planted
// under a file's name is opened without blocking and refused), and a file larger than max
// bytes. gem reads files for
// extensions this way (context files, skills, @{…} files): a link planted in an extension
// or a cloned project must not make gem read ~/.ssh for it.
func ReadBeneath(root, rel string, max int64) ([]byte, error) {
	if filepath.IsAbs(rel) {
		return nil, fmt.Errorf("%s: %w: give a path relative to %s", rel, ErrOutside, root)
	}
	f, err := openBeneath(root, filepath.Clean(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Join(root, rel))
	}
	if st.Size() > max {
		return nil, &TooLargeError{Path: filepath.Join(root, rel), Size: st.Size(), Max: max}
	}
	return io.ReadAll(io.LimitReader(f, max))
}

// TooLargeError is a file over a read limit.
type TooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than the %d gem reads", e.Path, e.Size, e.Max)
}

func beneathError(root, rel string, err error) error {
	if errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%s: %w %s", filepath.Join(root, rel), ErrOutside, root)
	}
	return &os.PathError{Op: "open", Path: filepath.Join(root, rel), Err: err}
}

// openBeneathPortable resolves the path and checks it before opening (a small window
// remains between the two where openat2 is missing).
func openBeneathPortable(root, rel string) (*os.File, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	if real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s: %w %s", filepath.Join(root, rel), ErrOutside, root)
	}
	return os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
