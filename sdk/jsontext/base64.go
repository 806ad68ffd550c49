package jsontext

import (
	"encoding/base64"
	"encoding/binary"
)

// A page's base64 was a fifth of the artifact plugin's CPU with
// encoding/base64, which turns three bytes into four characters a step.
// encodeBase64 does six bytes a step: one 8-byte load, four lookups of 12
// bits each giving two characters, one 8-byte store.

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// base64Pairs maps 12 bits to their two characters, the first in the low
// byte (stored little-endian, it comes first).
var base64Pairs = func() (t [4096]uint16) {
	for v := range t {
		t[v] = uint16(base64Alphabet[v>>6]) | uint16(base64Alphabet[v&63])<<8
	}
	return t
}()

// encodeBase64 writes src's standard base64 with padding into dst, which
// holds base64.StdEncoding.EncodedLen(len(src)) bytes: what
// base64.StdEncoding.Encode writes.
func encodeBase64(dst, src []byte) {
	for len(src) >= 8 && len(dst) >= 8 {
		x := binary.BigEndian.Uint64(src) // the top 48 bits are six bytes
		binary.LittleEndian.PutUint64(dst, uint64(base64Pairs[x>>52])|
			uint64(base64Pairs[(x>>40)&0xfff])<<16|
			uint64(base64Pairs[(x>>28)&0xfff])<<32|
			uint64(base64Pairs[(x>>16)&0xfff])<<48)
		src, dst = src[6:], dst[8:]
	}
	// The rest starts on a multiple of three bytes, so its encoding, with
	// any padding, follows on exactly.
	base64.StdEncoding.Encode(dst, src)
}
