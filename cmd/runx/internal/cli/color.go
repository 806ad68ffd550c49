package cli

import (
	"os"

	"golang.org/x/term"
)

// Terminal reports whether f is a terminal. It is decided once, from the
// process's own file descriptors, before anything wraps them: a wrapped
// stream (the taint set's writer, the interrupt guard) hides what it wraps.
func Terminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// colorOff reports whether the environment turns colour off: NO_COLOR set
// to anything but the empty string (no-color.org).
func colorOff() bool { return os.Getenv("NO_COLOR") != "" }

// Styled reports whether human output on stdout may use colour: only on a
// terminal, never with NO_COLOR or --no-color.
func (io *IO) Styled() bool { return io.OutTerminal && !io.NoColor && !colorOff() }

// StyledErr is Styled for stderr.
func (io *IO) StyledErr() bool { return io.ErrTerminal && !io.NoColor && !colorOff() }

// Paint wraps s in an ANSI colour when styled.
func Paint(styled bool, color, s string) string {
	if !styled {
		return s
	}
	codes := map[string]string{"green": "32", "red": "31", "yellow": "33", "dim": "2", "bold": "1"}
	return "\x1b[" + codes[color] + "m" + s + "\x1b[0m"
}
