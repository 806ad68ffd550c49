package fs

import (
	"bytes"
	"fmt"

	"github.com/rogpeppe/go-internal/diff"
)

// unifiedDiff is the whole diff of one file change, with a/ and b/ names as
// git writes them and /dev/null for the side that does not exist. Content
// that is not UTF-8 text cannot be shown line by line in a JSON string
// without altering it, so it is named as binary, as git does; its digests
// still say exactly what changes.
func unifiedDiff(fc *fileChange) string {
	oldName, newName := "a/"+fc.target.Display, "b/"+fc.target.Display
	switch fc.op {
	case OpCreate:
		oldName = "/dev/null"
	case OpDelete:
		newName = "/dev/null"
	}
	if !isText(fc.before) || !isText(fc.after) {
		return fmt.Sprintf("Binary files %s and %s differ\n", oldName, newName)
	}
	d := diff.Diff(oldName, fc.before, newName, fc.after)
	if d == nil {
		// Same bytes (an empty file created or removed, or a write that
		// changes nothing): the header alone says what happens.
		var b bytes.Buffer
		fmt.Fprintf(&b, "diff %s %s\n--- %s\n+++ %s\n", oldName, newName, oldName, newName)
		return b.String()
	}
	return string(d)
}
