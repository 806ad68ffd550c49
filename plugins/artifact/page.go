package artifact

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/jsontext"
	"github.com/runxhq/runx/sdk/plugin"
)

type readRequest struct {
	Ref      string `json:"ref"`
	Offset   int64  `json:"offset"`
	MaxBytes int    `json:"max_bytes"`
	Encoding string `json:"encoding"`
}

// Page encodings.
const (
	encodingBase64    = "base64"
	encodingUTF8      = "utf8"
	encodingJSONArray = "json_array"
)

// pagePool holds read buffers of a page's ceiling and a character's
// look-ahead, reused across calls.
var pagePool = sync.Pool{New: func() any { b := make([]byte, MaxPageBytes+utf8.UTFMax); return &b }}

// read answers one runx.artifact_page.v1 page. The document is written by
// hand: a page is up to 4 MiB and is escaped or encoded straight from the
// buffer it was read into.
func (s *store) read(call *plugin.Call, req *readRequest) *plugin.Result {
	r, res := s.lookup(call.Context.RunID, req.Ref)
	if res != nil {
		return res
	}
	if res := scopeAllows(call.Context, r); res != nil {
		return res
	}
	if req.MaxBytes == 0 {
		req.MaxBytes = DefaultPageBytes
	}
	if req.Encoding == "" {
		req.Encoding = encodingBase64
	}
	if req.Offset > r.Bytes {
		return plugin.Refused(errcode.ArtifactOffsetInvalid, fmt.Sprintf("offset %d is past the end of %s (%d bytes)", req.Offset, r.Ref, r.Bytes))
	}
	f, err := os.Open(s.blobPath(r.Digest))
	if err != nil {
		return plugin.Failed(errcode.ArtifactNotFound, fmt.Sprintf("the content of %s is missing from the artifact store", r.Ref))
	}
	defer f.Close()
	key := pageKey{project: s.project, run: call.Context.RunID, ref: r.Ref, digest: r.Digest, bytes: r.Bytes,
		offset: req.Offset, maxBytes: req.MaxBytes, encoding: req.Encoding}
	var doc []byte
	var next int64
	if p := pages.take(key); p != nil {
		doc, next = p.doc, p.next
	} else if doc, next, res = s.buildPage(f, r, req); res != nil {
		return res
	}
	if next < r.Bytes {
		s.prefetch(key, r, next)
	}
	return plugin.OK(doc, nil)
}

// prefetch prepares the page after key's, which its reader asks for next
// when it pages the artifact through (prefetch.go).
func (s *store) prefetch(key pageKey, r *record, next int64) {
	key.offset = next
	rec := *r
	req := readRequest{Ref: key.ref, Offset: next, MaxBytes: key.maxBytes, Encoding: key.encoding}
	pages.start(key, func() ([]byte, int64) {
		f, err := os.Open(s.blobPath(rec.Digest))
		if err != nil {
			return nil, 0
		}
		defer f.Close()
		doc, next, res := s.buildPage(f, &rec, &req)
		if res != nil {
			return nil, 0
		}
		return doc, next
	})
}

// buildPage reads req's page of r's blob f and writes its document; a
// refusal says why it has none.
func (s *store) buildPage(f *os.File, r *record, req *readRequest) ([]byte, int64, *plugin.Result) {
	bufp := pagePool.Get().(*[]byte)
	defer pagePool.Put(bufp)
	// Up to four bytes past the page: a UTF-8 page sees where the next
	// character starts, or the whole of one longer than max_bytes.
	want := min(int64(req.MaxBytes)+utf8.UTFMax, r.Bytes-req.Offset)
	buf := (*bufp)[:want]
	if _, err := f.ReadAt(buf, req.Offset); err != nil && err != io.EOF {
		return nil, 0, plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot read the artifact: "+err.Error())
	}
	var p page
	var res *plugin.Result
	switch req.Encoding {
	case encodingUTF8:
		res = p.utf8(buf, req)
	case encodingJSONArray:
		res = p.jsonArray(f, buf, req, r.Bytes, false)
	default:
		p.raw = buf[:min(len(buf), req.MaxBytes)]
		p.next = req.Offset + int64(len(p.raw))
	}
	if res != nil {
		return nil, 0, res
	}
	return p.appendDocument(make([]byte, 0, documentSize(&p, req.Encoding)), r, req), p.next, nil
}

// page is one page's bytes and where the next begins.
type page struct {
	raw   []byte   // the exact byte range [offset, next)
	items [][]byte // json_array: each item's bytes within raw
	next  int64
}

// utf8 ends the page on a character: at most max_bytes, cut back to the
// start of the character the cut would split, or one whole character when
// max_bytes is smaller than it.
func (p *page) utf8(buf []byte, req *readRequest) *plugin.Result {
	if len(buf) > 0 && !utf8.RuneStart(buf[0]) {
		return plugin.Refused(errcode.ArtifactOffsetInvalid, fmt.Sprintf("offset %d is inside a UTF-8 character; start at 0 or a next_offset", req.Offset))
	}
	end := len(buf)
	if end > req.MaxBytes {
		end = req.MaxBytes
		for end > 0 && !utf8.RuneStart(buf[end]) {
			end--
		}
		if end == 0 { // a character longer than max_bytes goes whole
			_, end = utf8.DecodeRune(buf)
		}
	}
	if !utf8.Valid(buf[:end]) {
		return plugin.Refused(errcode.ArtifactNotUTF8, fmt.Sprintf("%s is not UTF-8 text in bytes %d-%d; read it with encoding base64", req.Ref, req.Offset, req.Offset+int64(end)))
	}
	p.raw = buf[:end]
	p.next = req.Offset + int64(end)
	return nil
}

// documentSize is about what the page's document takes, so it is written
// into one allocation.
func documentSize(p *page, encoding string) int {
	n := len(p.raw)
	if encoding == encodingBase64 {
		n = base64.StdEncoding.EncodedLen(n)
	} else {
		n += n / 8
	}
	return n + 512
}

// appendDocument writes runx.artifact_page.v1: the small fields first, then
// the content.
func (p *page) appendDocument(dst []byte, r *record, req *readRequest) []byte {
	// The range digest and the content's encoding are a page's two large
	// costs and need not wait for each other: a large page is hashed on
	// another goroutine while it is encoded (the host waiting for the
	// answer leaves the cores free), and the digest is written into the
	// place kept for it. The encoding itself is split over the cores too
	// (sdk/jsontext), in more pieces than cores so they fill in around
	// the digest, which cannot be split.
	var sum [sha256.Size]byte
	hashed := make(chan struct{})
	if len(p.raw) >= parallelDigestMin {
		go func() { sum = digestPreemptibly(p.raw); close(hashed) }()
	} else {
		sum = sha256.Sum256(p.raw)
		close(hashed)
	}
	dst = append(dst, `{"schema":"`+PageSchema+`","ref":"`...)
	dst = append(dst, r.Ref...)
	dst = append(dst, `","digest":"`...)
	dst = append(dst, r.Digest...)
	dst = append(dst, `","bytes":`...)
	dst = strconv.AppendInt(dst, r.Bytes, 10)
	dst = append(dst, `,"encoding":"`...)
	dst = append(dst, req.Encoding...)
	dst = append(dst, `","offset":`...)
	dst = strconv.AppendInt(dst, req.Offset, 10)
	dst = append(dst, `,"next_offset":`...)
	dst = strconv.AppendInt(dst, p.next, 10)
	dst = append(dst, `,"range_digest":"sha256:`...)
	digestAt := len(dst)
	dst = append(dst, make([]byte, hex.EncodedLen(sha256.Size))...)
	dst = append(dst, `","eof":`...)
	dst = strconv.AppendBool(dst, p.next >= r.Bytes)
	switch req.Encoding {
	case encodingUTF8:
		dst = append(dst, `,"data":`...)
		dst = jsontext.AppendStringParallel(dst, p.raw)
	case encodingJSONArray:
		dst = append(dst, `,"items":[`...)
		for i, item := range p.items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, item...)
		}
		dst = append(dst, ']')
	default:
		dst = append(dst, `,"data_base64":"`...)
		dst = jsontext.AppendBase64(dst, p.raw)
		dst = append(dst, '"')
	}
	<-hashed
	hex.Encode(dst[digestAt:], sum[:])
	return append(dst, '}')
}

// digestPreemptibly is sha256.Sum256(b) written in pieces: the hash's
// assembly cannot be preempted, so a 4 MiB page hashed in one call kept
// the garbage collector's stop of this goroutine spinning for the whole
// hash (a quarter of the plugin's CPU in suspendG when profiled).
func digestPreemptibly(b []byte) [sha256.Size]byte {
	h := sha256.New()
	for len(b) > 0 {
		n := min(len(b), 64<<10)
		h.Write(b[:n])
		b = b[n:]
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// parallelDigestMin is the smallest page hashed beside its encoding; a
// goroutine costs more than hashing anything smaller.
const parallelDigestMin = 256 << 10
