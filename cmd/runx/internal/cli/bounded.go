package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on a value shown in human output: a result on one line up to
// InlineValueBytes, otherwise indented, at most ValueLines lines of at most
// ValueLineBytes each.
const (
	InlineValueBytes = 120
	ValueLines       = 30
	ValueLineBytes   = 200
)

// PrintValue writes a JSON value for a person after label: on its line when
// short, otherwise indented below it, bounded, and when cut saying how
// large it is and where the whole of it is (whole names the command).
func PrintValue(w io.Writer, label string, raw json.RawMessage, whole string) {
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		compact.Reset()
		compact.Write(raw)
	}
	if compact.Len() <= InlineValueBytes && !bytes.ContainsRune(compact.Bytes(), '\n') {
		fmt.Fprintf(w, "%s%s\n", label, Visible(compact.String()))
		return
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, compact.Bytes(), "", "  ") != nil {
		pretty.Reset()
		pretty.Write(raw)
	}
	fmt.Fprintln(w, strings.TrimRight(label, " "))
	lines := strings.Split(strings.TrimSuffix(pretty.String(), "\n"), "\n")
	cut := false
	for i, l := range lines {
		if i == ValueLines {
			cut = true
			break
		}
		if len(l) > ValueLineBytes {
			end := ValueLineBytes
			for end > 0 && !utf8.RuneStart(l[end]) {
				end--
			}
			l, cut = l[:end]+"…", true
		}
		fmt.Fprintf(w, "    %s\n", Visible(l))
	}
	if cut {
		more := ""
		if len(lines) > ValueLines {
			more = fmt.Sprintf("%d more lines, ", len(lines)-ValueLines)
		}
		fmt.Fprintf(w, "    … (%s%d bytes in all; the whole value: %s)\n", more, compact.Len(), whole)
	}
}

// Visible is s fit for a terminal: newlines and tabs kept, every other
// control or format character (an escape sequence, a bidirectional
// override, a zero-width character) written as its \u escape, so what is
// shown is what the value holds.
func Visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
