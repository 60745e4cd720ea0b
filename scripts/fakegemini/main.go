// Command fakegemini serves a scripted Gemini API on 127.0.0.1 (internal/fakegemini) for
// demos: `go run ./scripts/fakegemini script.json` prints the base URL to give gem as
// GEM_GEMINI_BASE_URL, then serves until killed.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gemhost/gem/internal/fakegemini"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fakegemini script.json")
		os.Exit(2)
	}
	replies, err := fakegemini.LoadScript(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakegemini:", err)
		os.Exit(1)
	}
	srv, err := fakegemini.Start(replies, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakegemini:", err)
		os.Exit(1)
	}
	fmt.Println(srv.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	srv.Close()
}
