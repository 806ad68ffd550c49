// Package jsontext writes JSON text by hand where a plugin's answer is
// large: a 4 MiB page of a log or of an artifact is escaped straight from
// the buffer it was read into, in one pass, since encoding/json would copy
// it into a string first and escape it on a slower general path.
package jsontext

import (
	"encoding/binary"
	"math/bits"
)

// plain marks the bytes a JSON string holds as they are: printable ASCII
// but the quote and backslash, and every byte from 0x80 up (the caller
// gives valid UTF-8).
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// Eight bytes at a time: mark flags, in a byte's high bit, a byte below
// 0x20, a quote or a backslash (the zero-byte tests of "Bit Twiddling
// Hacks"). A word with none is copied whole; otherwise its lowest flag is
// exact (a test's borrow only runs upward), so it names the first byte to
// escape.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

func mark(x uint64) uint64 {
	below := (x - 0x20*ones) &^ x
	quote := x ^ ('"' * ones)
	slash := x ^ ('\\' * ones)
	return (below | ((quote - ones) &^ quote) | ((slash - ones) &^ slash)) & highs
}

// AppendString appends the pieces, taken as one valid UTF-8 text, as one
// JSON string: quoted, with the quote, the backslash and control bytes
// escaped as encoding/json escapes them (but for <, > and &, which it
// leaves as they are, as encoding/json's Encoder does with SetEscapeHTML
// false). Only ASCII bytes are ever escaped, so a text may be cut into
// pieces anywhere, even inside a character.
func AppendString(dst []byte, pieces ...[]byte) []byte {
	dst = append(dst, '"')
	for _, p := range pieces {
		dst = appendEscaped(dst, p)
	}
	return append(dst, '"')
}

// appendEscaped appends p escaped, without quotes.
func appendEscaped(dst, p []byte) []byte {
	start, i := 0, 0
	for i < len(p) {
		for i+32 <= len(p) {
			w := p[i : i+32 : i+32]
			if mark(binary.LittleEndian.Uint64(w[0:8]))|mark(binary.LittleEndian.Uint64(w[8:16]))|
				mark(binary.LittleEndian.Uint64(w[16:24]))|mark(binary.LittleEndian.Uint64(w[24:32])) != 0 {
				break
			}
			i += 32
		}
		if i+8 <= len(p) {
			m := mark(binary.LittleEndian.Uint64(p[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else if i < len(p) && plain[p[i]] {
			i++
			continue
		} else if i >= len(p) {
			break
		}
		dst = append(dst, p[start:i]...)
		switch c := p[i]; c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	return append(dst, p[start:]...)
}
