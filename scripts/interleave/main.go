// Command interleave times commands run in turn, round after round (one run of each per
// round), and prints each one's median wall time in ms and the ratios of the others to the
// first: on a shared, noisy machine, interleaving keeps drift out of the ratio (hyperfine runs
// all of one command, then all of the next).
//
//	go run ./scripts/interleave -runs 150 "baseline cmd args" "other cmd args"
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("runs", 100, "rounds timed (after 10 warm-up rounds)")
	flag.Parse()
	cmds := flag.Args()
	if len(cmds) < 2 {
		fmt.Fprintln(os.Stderr, "usage: interleave [-runs N] 'baseline command' 'command'...")
		os.Exit(2)
	}
	times := make([][]float64, len(cmds))
	for round := 0; round < *runs+10; round++ {
		for i, c := range cmds {
			f := strings.Fields(c)
			cmd := exec.Command(f[0], f[1:]...)
			t0 := time.Now()
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "interleave: %s: %v\n", c, err)
				os.Exit(1)
			}
			if round >= 10 {
				times[i] = append(times[i], float64(time.Since(t0).Microseconds())/1000)
			}
		}
	}
	median := func(v []float64) float64 { sort.Float64s(v); return v[len(v)/2] }
	base := median(times[0])
	for i, c := range cmds {
		m := median(times[i])
		fmt.Printf("%8.2f ms  %5.2fx  %s\n", m, m/base, c)
	}
}
