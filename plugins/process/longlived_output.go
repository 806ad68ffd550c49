package process

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// A log page is written as JSON by hand: its output is escaped straight
// from the buffer its frames were read into, in one pass, since a page is
// up to 4 MiB and encoding/json would copy it into a string, coalesce it
// again, and escape it with a slower general path.

// jsonPlain marks the bytes a JSON string holds as they are: printable
// ASCII but the quote and backslash, and every byte of a multi-byte UTF-8
// sequence (the chunk is checked to be valid UTF-8 first).
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// Eight bytes at a time: a word holds nothing to escape when no byte is
// below 0x20, a quote or a backslash (bytes from 0x80 up pass as UTF-8).
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

func appendJSONString(dst []byte, pieces [][]byte) []byte {
	dst = append(dst, '"')
	for _, p := range pieces {
		start := 0
		for i := 0; i < len(p); i++ {
			if i+8 <= len(p) && wordPlain(binary.LittleEndian.Uint64(p[i:])) {
				i += 7
				continue
			}
			c := p[i]
			if jsonPlain[c] {
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

// isASCII reports whether every piece is ASCII, the common case a log
// needs no UTF-8 decoding for.
func isASCII(pieces [][]byte) bool {
	for _, p := range pieces {
		i := 0
		for ; i+8 <= len(p); i += 8 {
			if binary.LittleEndian.Uint64(p[i:])&highs != 0 {
				return false
			}
		}
		for ; i < len(p); i++ {
			if p[i] >= 0x80 {
				return false
			}
		}
	}
	return true
}

// appendOutput writes a runx.process.output.v1 document: the small fields
// first, then the chunks, so a reader after the cursor can stop early.
func appendOutput(dst []byte, o *Output, page *logPage) []byte {
	dst = append(dst, `{"schema":`...)
	dst = strconv.AppendQuote(dst, o.Schema)
	dst = append(dst, `,"process_id":`...)
	dst = appendJSONValue(dst, o.ProcessID)
	dst = append(dst, `,"cursor":`...)
	dst = strconv.AppendQuote(dst, o.Cursor)
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, int64(o.Bytes), 10)
	dst = append(dst, `,"dropped_bytes":`...)
	dst = strconv.AppendInt(dst, o.DroppedBytes, 10)
	dst = append(dst, `,"running":`...)
	dst = strconv.AppendBool(dst, o.Running)
	dst = append(dst, `,"state":`...)
	dst = appendJSONValue(dst, o.State)
	if o.ExitCode != nil {
		dst = append(dst, `,"exit_code":`...)
		dst = strconv.AppendInt(dst, int64(*o.ExitCode), 10)
	}
	if o.Signal != "" {
		dst = append(dst, `,"signal":`...)
		dst = appendJSONValue(dst, o.Signal)
	}
	dst = append(dst, `,"chunks":[`...)
	for i := range page.chunks {
		c := &page.chunks[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"stream":"`...)
		dst = append(dst, streamNames[c.stream]...)
		if isASCII(c.pieces) {
			dst = append(dst, `","data":`...)
			dst = appendJSONString(dst, c.pieces)
		} else if whole := c.bytes(); utf8.Valid(whole) {
			dst = append(dst, `","data":`...)
			dst = appendJSONString(dst, [][]byte{whole})
		} else {
			dst = append(dst, `","data_base64":"`...)
			dst = base64.StdEncoding.AppendEncode(dst, whole)
			dst = append(dst, '"')
		}
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

// appendJSONValue writes a small value with encoding/json.
func appendJSONValue(dst []byte, v any) []byte {
	raw, _ := json.Marshal(v)
	return append(dst, raw...)
}
