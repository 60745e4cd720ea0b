// Command hello is the sample extension's executable command: `/hello world`,
// `/hello to <name>`. It uses only the standard library.
package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	args := os.Args[1:]
	switch {
	case len(args) == 0 || args[0] == "world":
		fmt.Println("Hello, world!")
	case args[0] == "to" && len(args) > 1:
		fmt.Printf("Hello, %s!\n", strings.Join(args[1:], " "))
	default:
		fmt.Fprintln(os.Stderr, "usage: hello [world | to <name>]")
		os.Exit(2)
	}
}
