package sandbox

import (
	"slices"
	"time"
)

func nowNanos() int64 { return time.Now().UnixNano() }

func medianOf(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
