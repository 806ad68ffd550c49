package schema

import "encoding/binary"

// The string scan's word tests (the exact "has a byte less than n" test of
// "Bit Twiddling Hacks"): a word holds a control byte when some byte is
// below 0x20.
const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	spaces = 0x2020202020202020
)

// below reports, in each byte's high bit, where x may hold a byte under
// 0x20: exact as a whole (zero means none), which is all the scan asks.
func below(x uint64) uint64 { return (x - spaces) &^ x & highs }

// hasControl reports whether run holds a byte below 0x20, which a JSON
// string may not hold raw: thirty-two bytes a step, then a word, then
// the tail byte by byte.
func hasControl(run []byte) bool {
	i := 0
	for ; i+32 <= len(run); i += 32 {
		r := run[i : i+32 : i+32]
		if below(binary.LittleEndian.Uint64(r[0:8]))|below(binary.LittleEndian.Uint64(r[8:16]))|
			below(binary.LittleEndian.Uint64(r[16:24]))|below(binary.LittleEndian.Uint64(r[24:32])) != 0 {
			return true
		}
	}
	for ; i+8 <= len(run); i += 8 {
		if below(binary.LittleEndian.Uint64(run[i:])) != 0 {
			return true
		}
	}
	for ; i < len(run); i++ {
		if run[i] < 0x20 {
			return true
		}
	}
	return false
}

// escapeLen is the length of the escape at the start of e (its backslash),
// or 0 when it is not one JSON allows.
func escapeLen(e []byte) int {
	if len(e) < 2 {
		return 0
	}
	switch e[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(e) < 6 || !isHex(e[2]) || !isHex(e[3]) || !isHex(e[4]) || !isHex(e[5]) {
			return 0
		}
		return 6
	}
	return 0
}
