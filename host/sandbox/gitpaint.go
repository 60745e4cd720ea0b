package sandbox

import (
	"container/heap"
	"errors"
)

// paint is which side reaches a commit: the new values of a ref, the existing refs.
type paint uint8

const (
	paintNew paint = 1 << iota
	paintOld
)

// maxWalk bounds the commits one ref update may make the guard read.
const maxWalk = 200000

// paintWalk walks commits newest first, painting each with the sides that reach it.
type paintWalk struct {
	st    *objectStore
	paint map[objectID]paint
	seen  map[objectID]*gitCommit
	queue commitHeap
	fresh int // entries in the queue painted new only
}

func newPaintWalk(st *objectStore) *paintWalk {
	return &paintWalk{st: st, paint: map[objectID]paint{}, seen: map[objectID]*gitCommit{}}
}

// push paints c with p and queues it when that adds a side.
func (w *paintWalk) push(c *gitCommit, p paint) {
	had := w.paint[c.id]
	if had|p == had {
		return
	}
	w.paint[c.id] = had | p
	w.seen[c.id] = c
	heap.Push(&w.queue, queued{c, had | p})
	if had|p == paintNew {
		w.fresh++
	}
}

// run walks until no commit only the new side reaches is queued, and returns the commits
// painted new only.
func (w *paintWalk) run() ([]*gitCommit, error) {
	for w.fresh > 0 && w.queue.Len() > 0 {
		q := heap.Pop(&w.queue).(queued)
		if q.p == paintNew {
			w.fresh--
		}
		if len(w.seen) > maxWalk {
			return nil, errors.New("too many commits to check")
		}
		p := w.paint[q.c.id] // painted since it was queued, perhaps
		for _, id := range q.c.parents {
			pc, ok := w.seen[id]
			if !ok {
				var err error
				if pc, err = w.st.commit(id); err != nil {
					continue // a shallow clone's boundary
				}
			}
			w.push(pc, p)
		}
	}
	var out []*gitCommit
	for id, p := range w.paint {
		if p == paintNew {
			out = append(out, w.seen[id])
		}
	}
	return out, nil
}

type queued struct {
	c *gitCommit
	p paint
}

// commitHeap orders commits newest first (committer time).
type commitHeap []queued

func (h commitHeap) Len() int           { return len(h) }
func (h commitHeap) Less(i, j int) bool { return h[i].c.when > h[j].c.when }
func (h commitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *commitHeap) Push(x any)        { *h = append(*h, x.(queued)) }
func (h *commitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
