package cli

import (
	"io"
	"os"
)

// Styled reports whether human output to w may use colour: only on a
// terminal, and never when NO_COLOR is set.
func Styled(w io.Writer) bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	// A wrapped stream (the taint set's writer) is a terminal when what it
	// wraps is.
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// Paint wraps s in an ANSI colour when styled.
func Paint(styled bool, color, s string) string {
	if !styled {
		return s
	}
	codes := map[string]string{"green": "32", "red": "31", "yellow": "33", "dim": "2", "bold": "1"}
	return "\x1b[" + codes[color] + "m" + s + "\x1b[0m"
}
