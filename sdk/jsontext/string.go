// Package jsontext writes JSON text by hand where a plugin's answer is
// large: a 4 MiB page of a log or of an artifact is escaped straight from
// the buffer it was read into, in one pass, since encoding/json would copy
// it into a string first and escape it on a slower general path.
package jsontext

import "encoding/binary"

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

// Eight bytes at a time: a word holds nothing to escape when no byte is
// below 0x20, a quote or a backslash (the exact zero-byte tests of "Bit
// Twiddling Hacks").
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

func wordPlain(x uint64) bool {
	below := (x - 0x20*ones) &^ x
	quote := x ^ ('"' * ones)
	slash := x ^ ('\\' * ones)
	return (below|((quote-ones)&^quote)|((slash-ones)&^slash))&highs == 0
}

// AppendString appends the pieces, taken as one valid UTF-8 text, as one
// JSON string: quoted, with the quote, the backslash and control bytes
// escaped as encoding/json escapes them (but for <, > and &, which it
// leaves as they are, as encoding/json's Encoder does with SetEscapeHTML
// false).
func AppendString(dst []byte, pieces ...[]byte) []byte {
	dst = append(dst, '"')
	for _, p := range pieces {
		start := 0
		for i := 0; i < len(p); i++ {
			if i+8 <= len(p) && wordPlain(binary.LittleEndian.Uint64(p[i:])) {
				i += 7
				continue
			}
			c := p[i]
			if plain[c] {
				continue
			}
			dst = append(dst, p[start:i]...)
			switch c {
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
			start = i + 1
		}
		dst = append(dst, p[start:]...)
	}
	return append(dst, '"')
}
