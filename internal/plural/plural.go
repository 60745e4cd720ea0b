// Package plural counts things in English: "1 extension", "2 extensions", never
// "2 extension(s)".
package plural

import "strconv"

// Count is n followed by noun, with an s when n is not 1 (nouns whose plural is regular;
// Of takes the plural form of the others).
func Count(n int, noun string) string { return Of(n, noun, noun+"s") }

// Of is n followed by one or many, as n calls for.
func Of(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
