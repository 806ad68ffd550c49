package jsontext

import (
	"encoding/base64"
	"runtime"
	"slices"
	"sync"
)

// A plugin answering a page of MiBs works while the host waits idle for
// the answer, so the page's encoding is split over the cores: pieces
// encoded at once, each on its own goroutine, joined in order. What each
// piece writes is exactly what one pass would write, since base64 of
// pieces whose lengths are multiples of three concatenates exactly, and an
// escape never spans two bytes of the text.

// parallelMin is the smallest text split: below it a goroutine costs more
// than the piece it would encode.
const parallelMin = 512 << 10

// pieceCount is how many pieces a text of n bytes is cut into: two a core,
// so the pieces balance against other work the caller runs beside them
// (a page's digest), each at least parallelMin/2 bytes.
func pieceCount(n int) int {
	if n < parallelMin {
		return 1
	}
	return max(1, min(2*runtime.GOMAXPROCS(0), n/(parallelMin/2)))
}

// AppendBase64 appends src in standard base64 with padding, as
// base64.StdEncoding.AppendEncode does, encoding a large src in pieces at
// once straight into their places in dst.
func AppendBase64(dst, src []byte) []byte {
	n := base64.StdEncoding.EncodedLen(len(src))
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	k := pieceCount(len(src))
	size := (len(src) / k / 3) * 3 // all but the last piece: no padding
	var wg sync.WaitGroup
	for j := 0; j < k-1; j++ {
		wg.Add(1)
		go func(in []byte, at int) {
			defer wg.Done()
			encodeBase64(out[at:], in)
		}(src[j*size:(j+1)*size], j*size/3*4)
	}
	encodeBase64(out[(k-1)*size/3*4:], src[(k-1)*size:])
	wg.Wait()
	return dst[:len(dst)+n]
}

// escapedPool holds the buffers the pieces after the first are escaped
// into; each is copied into the answer before the call returns and is
// never handed on, so it may be reused.
var escapedPool = sync.Pool{New: func() any { return new([]byte) }}

// AppendStringParallel is AppendString: the pieces, taken as one text, as
// one JSON string; a large text is cut into ranges escaped at once, the
// first straight into dst, the others into buffers of their own, joined
// in order.
func AppendStringParallel(dst []byte, pieces ...[]byte) []byte {
	total := 0
	for _, p := range pieces {
		total += len(p)
	}
	k := pieceCount(total)
	if k == 1 {
		return AppendString(dst, pieces...)
	}
	ranges := cut(pieces, total, k)
	bufs := make([]*[]byte, k-1)
	var wg sync.WaitGroup
	for j := 1; j < k; j++ {
		bufs[j-1] = escapedPool.Get().(*[]byte)
		wg.Add(1)
		go func(buf *[]byte, r [][]byte) {
			defer wg.Done()
			n := 0
			for _, p := range r {
				n += len(p)
			}
			b := (*buf)[:0]
			if cap(b) < n+n/8 { // room for an escape every eight bytes
				b = make([]byte, 0, n+n/4)
			}
			for _, p := range r {
				b = appendEscaped(b, p)
			}
			*buf = b
		}(bufs[j-1], ranges[j])
	}
	dst = append(dst, '"')
	for _, p := range ranges[0] {
		dst = appendEscaped(dst, p)
	}
	wg.Wait()
	for _, buf := range bufs {
		dst = append(dst, *buf...)
		escapedPool.Put(buf)
	}
	return append(dst, '"')
}

// cut splits the concatenation of pieces, total bytes long, into k ranges
// of about equal length, each a list of subslices of the pieces.
func cut(pieces [][]byte, total, k int) [][][]byte {
	ranges := make([][][]byte, k)
	size := total / k
	j, room := 0, size
	for _, p := range pieces {
		for len(p) > 0 {
			if j == k-1 {
				room = len(p) // the last range takes the rest
			}
			n := min(room, len(p))
			ranges[j] = append(ranges[j], p[:n])
			p, room = p[n:], room-n
			if room == 0 && j < k-1 {
				j, room = j+1, size
			}
		}
	}
	return ranges
}
