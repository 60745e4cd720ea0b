//go:build unix && !linux

package sandbox

import (
	"os"
	"runtime"
	"sync"
)

var machineFacts = sync.OnceValue(func() Facts {
	ns, why := Namespaces()
	return Facts{OS: runtime.GOOS, Arch: runtime.GOARCH, Root: os.Geteuid() == 0, Namespaces: ns, NamespacesWhy: why}
})

func addPathFacts(*Facts) {}
