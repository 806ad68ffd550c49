package completion

import (
	"fmt"
	"strings"
	"testing"
)

// One completion offers at most MaxEntries values, however many match.
func TestBoundedCapsOffers(t *testing.T) {
	var many []string
	for i := 0; i < MaxEntries+50; i++ {
		many = append(many, fmt.Sprintf("run_%d", i))
	}
	if got := bounded(many); len(got) != MaxEntries {
		t.Fatalf("offered %d, want %d", len(got), MaxEntries)
	}
}

// A description is one visible line beside its value: a skill's newlines
// or control characters cannot break the shell's completion list.
func TestOfferIsOneVisibleLine(t *testing.T) {
	got := offer("deploy#build", "Append\na line\tto\x1b[2Jlog.txt.\r\n"+strings.Repeat("x", 200))
	value, desc, ok := strings.Cut(got, "\t")
	if !ok || value != "deploy#build" {
		t.Fatalf("got %q", got)
	}
	if strings.ContainsAny(desc, "\t\n\r\x1b") {
		t.Fatalf("description not one visible line: %q", desc)
	}
	if n := len([]rune(desc)); n > 80 {
		t.Fatalf("description is %d runes, want at most 80", n)
	}
	if offer("greet", "  ") != "greet" {
		t.Fatal("a blank description is offered as a value alone")
	}
}
