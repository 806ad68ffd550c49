package process

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/jsontext"
)

// A log page is written as JSON by hand (sdk/jsontext): its output is
// escaped straight from the buffer its frames were read into, a large one
// in pieces at once over the cores while the host waits (sdk/jsontext).

// highs is each byte's top bit: a word with none set is ASCII.
const highs = 0x8080808080808080

// isASCII reports whether every piece is ASCII, the common case a log
// needs no UTF-8 decoding for: thirty-two bytes a step, a whole page of it
// being scanned before it is escaped.
func isASCII(pieces [][]byte) bool {
	for _, p := range pieces {
		i := 0
		for ; i+32 <= len(p); i += 32 {
			w := p[i : i+32 : i+32]
			if (binary.LittleEndian.Uint64(w[0:8])|binary.LittleEndian.Uint64(w[8:16])|
				binary.LittleEndian.Uint64(w[16:24])|binary.LittleEndian.Uint64(w[24:32]))&highs != 0 {
				return false
			}
		}
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
			dst = jsontext.AppendStringParallel(dst, c.pieces...)
		} else if whole := c.bytes(); utf8.Valid(whole) {
			dst = append(dst, `","data":`...)
			dst = jsontext.AppendStringParallel(dst, whole)
		} else {
			dst = append(dst, `","data_base64":"`...)
			dst = jsontext.AppendBase64(dst, whole)
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
