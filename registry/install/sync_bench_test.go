package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/internal/prompt"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/registrytest"
)

// yes agrees to every consent.
type yes struct{}

func (yes) Confirm(context.Context, prompt.Question) (bool, error) { return true, nil }
func (yes) Choose(context.Context, string, []prompt.Choice, int) (int, error) {
	return 0, errors.New("not asked")
}
func (yes) Input(context.Context, string) (string, error) { return "", errors.New("not asked") }
func (yes) CanPrompt() bool                               { return true }

// BenchmarkSyncLock installs a lock of 20 extensions, each an archive on a server on
// 127.0.0.1 that answers after 30 ms (a network round trip), one by one (jobs=1) and several
// at once (jobs=4, gem ext sync's default): scripts/bench.sh reports the ratio.
func BenchmarkSyncLock(b *testing.B) {
	const n = 20
	archives := map[string][]byte{}
	for i := range n {
		name := fmt.Sprintf("ext%02d", i)
		archives["/"+name+".tar.gz"] = tarGz(b, map[string]string{
			name + "/gemini-extension.json": fmt.Sprintf(`{"name": %q, "version": "1.0.0"}`, name),
			name + "/GEMINI.md":             strings.Repeat("context of "+name+"\n", 200),
			name + "/commands/a.toml":       `prompt = "do a"`,
		})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(30 * time.Millisecond)
		data, ok := archives[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	defer srv.Close()
	newInstaller := func() *Installer {
		return &Installer{Env: registrytest.Env(b, nil), Sources: &Fetcher{}, Out: io.Discard, Prompt: yes{}}
	}
	// The lock: installed once, written by WriteLock.
	first := newInstaller()
	ctx := context.Background()
	for path := range archives {
		if _, err := first.Install(ctx, srv.URL+path, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := first.WriteLock(ctx, registry.LevelUser, false); err != nil {
		b.Fatal(err)
	}
	lock, err := first.ReadLock(registry.LevelUser)
	if err != nil || len(lock.Extensions) != n {
		b.Fatalf("lock: %v, %d entries", err, len(lock.Extensions))
	}
	for _, jobs := range []int{1, 4} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				in := newInstaller()
				b.StartTimer()
				res, err := in.Sync(ctx, lock, SyncOptions{Strict: true, Jobs: jobs})
				if err != nil {
					b.Fatal(err)
				}
				if len(res) != n || res[0].Status != StatusInstalled {
					b.Fatalf("synced %d, first %s", len(res), res[0].Status)
				}
			}
		})
	}
}
