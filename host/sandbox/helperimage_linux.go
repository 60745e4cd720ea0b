package sandbox

import (
	"os"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/config"
)

// helperFDVar names the descriptor of the front's image that gem's front hands gem-engine
// across its exec (HelperHandover): the engine runs its helper from that descriptor.
const helperFDVar = "GEM_SANDBOX_HELPER_FD"

// handedImage is the descriptor the front handed this process (helperFDVar), taken at its
// start and made close-on-exec at once, so that no program gem starts inherits it.
var handedImage = func() *os.File {
	v := config.Getenv("GEM_SANDBOX_HELPER_FD")
	if v == "" {
		return nil
	}
	os.Unsetenv(helperFDVar)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "the sandbox helper")
}()

// helperImage is the helper's file, opened once and executed from that descriptor at every
// start, never found again by its path (a program that may write the folder holding it would
// otherwise replace it between two starts, and its file would run outside every sandbox): the
// image the front handed gem-engine, else the running image itself (/proc/self/exe, the file
// this process was started from, whatever now lies at its path) when the program serves as
// its own helper, else the helper's path opened at the first start. nil: executed by path.
var helperImage = sync.OnceValue(func() *os.File {
	if handedImage != nil {
		return handedImage
	}
	path := "/proc/self/exe"
	if config.Getenv("GEM_SANDBOX_HELPER") != "" || !selfHelper {
		path = helperPath()
	}
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil
	}
	return f
})

// helperExecPath is what a helper child with the image at its descriptor fd executes.
func helperExecPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// HelperHandover is the variable that hands the running image to the gem-engine this process
// execs next (its descriptor kept open across that exec alone); "" when it cannot.
func HelperHandover() string {
	f := helperImage()
	if f == nil {
		return ""
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_SETFD, 0); err != nil {
		return ""
	}
	return helperFDVar + "=" + strconv.Itoa(int(f.Fd()))
}
