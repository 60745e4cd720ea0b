// Package suggest finds the name a user probably meant ("did you mean …?"): the closest
// candidate within an edit distance of 2, case-insensitive, or one the input is a prefix of
// (four letters or more). Libraries put what it finds in their typed errors; the front ends
// word the question.
package suggest

import "strings"

// Closest is the candidate s most probably meant, or "".
func Closest(s string, candidates []string) string {
	best, bestD := "", 3
	ls := strings.ToLower(s)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == ls {
			continue
		}
		if len(ls) >= 4 && (strings.HasPrefix(lc, ls) || strings.HasPrefix(ls, lc)) {
			return c
		}
		if d := distance(ls, lc); d < bestD && d < max(len(ls), 2) {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
