// Package boundedre matches a name by a regular expression and a length
// bound held apart. Go's regexp compiles a counted repetition such as
// x{0,127} into 127 copies of x: the dozen name rules written that way
// cost every runx process (the CLI and each plugin process) about 10 ms
// of package initialisation before it did anything (docs/PERFORMANCE.md,
// "Process start"). The same rule as an unbounded expression plus a length
// check compiles in microseconds and matches the same strings.
package boundedre

import (
	"fmt"
	"regexp"
)

// Regexp is an expression every match of which is also held to a length
// in bytes, min to max inclusive.
type Regexp struct {
	re       *regexp.Regexp
	min, max int
}

// MustCompile compiles expr, which should have no counted repetition of
// its own, bounded to min..max bytes. It panics on a bad expression, as
// regexp.MustCompile does, for package-level rules.
func MustCompile(expr string, min, max int) *Regexp {
	if min < 0 || max < min {
		panic(fmt.Sprintf("boundedre: bounds %d..%d", min, max))
	}
	return &Regexp{re: regexp.MustCompile(expr), min: min, max: max}
}

// MatchString reports whether s is within the bounds and matches.
func (r *Regexp) MatchString(s string) bool {
	return len(s) >= r.min && len(s) <= r.max && r.re.MatchString(s)
}

// String is the rule as messages show it.
func (r *Regexp) String() string {
	return fmt.Sprintf("%s (%d to %d characters)", r.re, r.min, r.max)
}
