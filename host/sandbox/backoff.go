package sandbox

import "time"

// Backoff spaces the restarts of a child that keeps failing (a plugin that crashes, an MCP
// server that dies or never answers): First after one failure, doubled per consecutive
// failure up to Cap; a success resets it. The zero Backoff waits 250 ms doubling to 8 s. It is
// not safe for concurrent use: its owner's lock guards it.
type Backoff struct {
	First, Cap time.Duration

	failures int
	last     time.Time
}

// Failed records a failure now.
func (b *Backoff) Failed() { b.failures++; b.last = time.Now() }

// Succeeded forgets the failures.
func (b *Backoff) Succeeded() { b.failures = 0 }

// Failures counts the consecutive failures.
func (b *Backoff) Failures() int { return b.failures }

// Delay is the wait after the last failure: 0 with none.
func (b *Backoff) Delay() time.Duration {
	if b.failures == 0 {
		return 0
	}
	first, limit := b.First, b.Cap
	if first <= 0 {
		first = 250 * time.Millisecond
	}
	if limit <= 0 {
		limit = 8 * time.Second
	}
	d := first
	for i := 1; i < b.failures && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// Remaining is how long until the next start may be tried: 0 when it may be now.
func (b *Backoff) Remaining() time.Duration {
	if b.failures == 0 {
		return 0
	}
	return max(0, time.Until(b.last.Add(b.Delay())))
}
