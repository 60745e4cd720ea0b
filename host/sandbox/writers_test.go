package sandbox

import "testing"

// TestWatchWrites: a watch on a folder is refused while a program that may write it or a
// folder above it runs, and is not quiet when such a program started after it opened, even
// one that ended since; programs writing elsewhere (a sibling, a folder below) do not count.
func TestWatchWrites(t *testing.T) {
	ws := "/home/u/proj"
	tests := []struct {
		name        string
		before      *writer // running when the watch opens
		during      *writer // started (and ended) while it is open
		open, quiet bool
	}{
		{"nothing runs", nil, nil, true, true},
		{"a writer of the workspace runs", &writer{roots: []string{ws}}, nil, false, false},
		{"a writer of the home runs", &writer{roots: []string{"/home/u"}}, nil, false, false},
		{"an unsandboxed program runs", &writer{all: true}, nil, false, false},
		{"a writer of a folder below", &writer{roots: []string{ws + "/out"}}, nil, true, true},
		{"a writer of a sibling", &writer{roots: []string{"/home/u/proj2", "/tmp"}}, nil, true, true},
		{"a writer of the workspace came and went", nil, &writer{roots: []string{ws}}, true, false},
		{"a writer elsewhere came and went", nil, &writer{roots: []string{"/var/lib/x"}}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := &writerSet{live: map[*writer]bool{}}
			if tt.before != nil {
				set.add(tt.before)
			}
			w := set.watch(ws)
			if (w != nil) != tt.open {
				t.Fatalf("watch opened %v, want %v", w != nil, tt.open)
			}
			if w == nil {
				return
			}
			if tt.during != nil {
				set.add(tt.during)
				set.done(tt.during)
			}
			if got := w.Quiet(); got != tt.quiet {
				t.Errorf("Quiet() = %v, want %v", got, tt.quiet)
			}
			if set.watches != 0 || set.ended != nil {
				t.Errorf("the closed watch left %d watches, ended %v", set.watches, set.ended)
			}
		})
	}
}
