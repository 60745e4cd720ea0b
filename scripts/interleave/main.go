// Command interleave times commands run in turn, round after round (one run of each per
// round), and prints each one's median wall time in ms and the ratios of the others to the
// first: on a shared, noisy machine, interleaving keeps drift out of the ratio (hyperfine runs
// all of one command, then all of the next). With -subject, it also prints that command's
// ratio to each of the others (the baselines and floors it is held to); -names gives the
// commands short names, printed instead of the commands.
//
//	go run ./scripts/interleave -runs 150 "baseline cmd args" "other cmd args"
//	go run ./scripts/interleave -names trampoline,gem,bwrap -subject 2 "…" "…" "…"
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
	subject := flag.Int("subject", 0, "the command (1 for the first) whose ratio to each other one is printed")
	names := flag.String("names", "", "comma-separated short names of the commands, for the ratio lines")
	flag.Parse()
	cmds := flag.Args()
	if len(cmds) < 2 || *subject < 0 || *subject > len(cmds) {
		fmt.Fprintln(os.Stderr, "usage: interleave [-runs N] [-names a,b,…] [-subject N] 'baseline command' 'command'...")
		os.Exit(2)
	}
	label := cmds
	if *names != "" {
		label = strings.Split(*names, ",")
		if len(label) != len(cmds) {
			fmt.Fprintf(os.Stderr, "interleave: %d names for %d commands\n", len(label), len(cmds))
			os.Exit(2)
		}
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
	medians := make([]float64, len(cmds))
	for i := range cmds {
		medians[i] = median(times[i])
	}
	for i := range cmds {
		fmt.Printf("%8.2f ms  %5.2fx  %s\n", medians[i], medians[i]/medians[0], label[i])
	}
	if *subject > 0 {
		s := *subject - 1
		for i := range cmds {
			if i != s {
				fmt.Printf("ratio %s / %s: %.2fx\n", label[s], label[i], medians[s]/medians[i])
			}
		}
	}
}
