package receipt

import (
	"fmt"
	"os"
)

// indexAppender appends the lines a repair of the index finds missing. It
// opens the locked index for appending only at the first such line, so a
// store that needs no repair is only read, and flushes what it appended
// once, at the end. op names the repair in errors ("restore", "repair").
type indexAppender struct {
	index *os.File // the index, opened and locked by lockIndex
	op    string
	w     *os.File
}

// opened says whether a line has been appended yet.
func (a *indexAppender) opened() bool { return a.w != nil }

func (a *indexAppender) write(line []byte) error {
	if a.w == nil {
		w, err := os.OpenFile(a.index.Name(), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return fmt.Errorf("open receipt index for %s: %w", a.op, err)
		}
		a.w = w
	}
	if _, err := a.w.Write(line); err != nil {
		return fmt.Errorf("%s receipt index: %w", a.op, err)
	}
	return nil
}

// finish flushes what was appended and closes the append descriptor; it
// does nothing when nothing was appended, or a second time.
func (a *indexAppender) finish() error {
	w := a.w
	if w == nil {
		return nil
	}
	a.w = nil
	defer w.Close()
	if err := w.Sync(); err != nil {
		return fmt.Errorf("sync receipt index after %s: %w", a.op, err)
	}
	return nil
}
