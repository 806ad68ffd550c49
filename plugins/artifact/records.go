package artifact

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// JSON-array record framing: a page holds whole items of the top-level
// array, as many as fit in max_bytes and always at least one (a single item
// past the 4 MiB page ceiling is refused, never cut). A page starts at 0
// (the array's opening bracket) or at a next_offset an earlier page gave,
// just past an item's comma; an offset where no item begins is refused. A
// page's range runs from its offset through the separator after its last
// item, so pages tile the artifact exactly.

var errIncomplete = errors.New("the value runs past the bytes read")

// jsonArray frames the page from buf, the bytes from the offset (at most
// max_bytes+1 of them). oneItem stops after the first item.
func (p *page) jsonArray(f *os.File, buf []byte, req *readRequest, total int64, oneItem bool) *plugin.Result {
	notArray := func(at int) *plugin.Result {
		return plugin.Refused(errcode.ArtifactNotJSONArray, fmt.Sprintf("%s is not a JSON array at byte %d; read it with encoding utf8 or base64", req.Ref, req.Offset+int64(at)))
	}
	noItem := plugin.Refused(errcode.ArtifactOffsetInvalid, fmt.Sprintf("no item of %s begins at offset %d; start at 0 or a next_offset", req.Ref, req.Offset))
	p.items = [][]byte{}
	i := skipSpace(buf, 0)
	if i >= len(buf) && int64(len(buf)) < total-req.Offset && !oneItem {
		return p.longFirstItem(f, req, total) // only whitespace in so few bytes
	}
	if req.Offset == 0 {
		if i >= len(buf) || buf[i] != '[' {
			return notArray(i)
		}
		i = skipSpace(buf, i+1)
		if i < len(buf) && buf[i] == ']' {
			return p.close(f, buf, i+1, req, total, notArray)
		}
	} else if i >= len(buf) || buf[i] == ',' || buf[i] == ']' {
		return noItem
	}
	limit := min(len(buf), req.MaxBytes)
	for {
		end, err := skipValue(buf, i)
		sep := -1
		if err == nil {
			if sep = skipSpace(buf, end); sep >= len(buf) {
				err = errIncomplete // the separator lies past the bytes read
			}
		}
		if err != nil {
			if len(p.items) > 0 {
				return nil // the page ends before this item
			}
			if int64(len(buf)) >= total-req.Offset {
				return notArray(len(buf))
			}
			return p.longFirstItem(f, req, total)
		}
		if !json.Valid(buf[i:end]) {
			if req.Offset > 0 && len(p.items) == 0 {
				return noItem
			}
			return notArray(i)
		}
		if buf[sep] != ',' && buf[sep] != ']' {
			if req.Offset > 0 && len(p.items) == 0 {
				return noItem
			}
			return notArray(sep)
		}
		pageEnd := sep + 1
		if pageEnd > limit && len(p.items) > 0 {
			return nil
		}
		if pageEnd > MaxPageBytes {
			return plugin.Refused(errcode.ArtifactRecordTooLarge, fmt.Sprintf("the item of %s at offset %d is longer than the %d MiB page ceiling", req.Ref, req.Offset+int64(i), MaxPageBytes>>20))
		}
		p.items = append(p.items, buf[i:end])
		p.raw, p.next = buf[:pageEnd], req.Offset+int64(pageEnd)
		if buf[sep] == ']' {
			return p.close(f, buf, pageEnd, req, total, notArray)
		}
		if oneItem || pageEnd >= limit {
			return nil
		}
		i = skipSpace(buf, pageEnd)
	}
}

// close ends the page at the array's closing bracket (buf[:after]): what
// follows it to the end of the artifact must be whitespace, and the page's
// range takes it in, so the page ends where the artifact does.
func (p *page) close(f *os.File, buf []byte, after int, req *readRequest, total int64, notArray func(int) *plugin.Result) *plugin.Result {
	rest := total - req.Offset - int64(after)
	var raw []byte
	if int64(len(buf)-after) >= rest {
		raw = buf[:after+int(rest)]
	} else {
		if rest > MaxPageBytes {
			return notArray(after)
		}
		tail := make([]byte, rest)
		if _, err := f.ReadAt(tail, req.Offset+int64(after)); err != nil && err != io.EOF {
			return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot read the artifact: "+err.Error())
		}
		raw = append(append(make([]byte, 0, after+len(tail)), buf[:after]...), tail...)
	}
	if k := skipSpace(raw, after); k < len(raw) {
		return notArray(k)
	}
	p.raw, p.next = raw, total
	return nil
}

// longFirstItem reads up to the page ceiling for a first item longer than
// max_bytes: a page always holds one whole item at least.
func (p *page) longFirstItem(f *os.File, req *readRequest, total int64) *plugin.Result {
	if req.MaxBytes >= MaxPageBytes {
		return plugin.Refused(errcode.ArtifactRecordTooLarge, fmt.Sprintf("the item of %s at offset %d is longer than the %d MiB page ceiling", req.Ref, req.Offset, MaxPageBytes>>20))
	}
	wider := *req
	wider.MaxBytes = MaxPageBytes
	// Its own buffer: the page's items point into it until the answer is
	// written. A first item this long is rare.
	buf := make([]byte, min(int64(MaxPageBytes)+1, total-req.Offset))
	if _, err := f.ReadAt(buf, req.Offset); err != nil && err != io.EOF {
		return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot read the artifact: "+err.Error())
	}
	*p = page{}
	return p.jsonArray(f, buf, &wider, total, true)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue finds where the JSON value at b[i] ends: strings are walked for
// their escapes and brackets counted; json.Valid judges the value after.
func skipValue(b []byte, i int) (int, error) {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return 0, errIncomplete
			}
			if depth == 0 {
				return i + 1, nil
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i, nil
			}
			if depth--; depth == 0 {
				return i + 1, nil
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, errIncomplete
}
