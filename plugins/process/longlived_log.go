package process

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
)

// A process's log is a sequence of frames, each one chunk of output tagged
// with the stream it came from, kept in segment files named by the absolute
// offset of their first byte. A cursor is an absolute offset on a frame
// boundary, so it stays valid while older segments are dropped: the reader
// then reports how many bytes the log no longer keeps. At most two segments
// are kept, so a log holds between one and two segments' worth of its end.

// Stream tags of a frame.
const (
	streamStdout   byte = 1
	streamStderr   byte = 2
	streamTerminal byte = 3
)

var streamNames = map[byte]string{streamStdout: "stdout", streamStderr: "stderr", streamTerminal: "terminal"}

const (
	frameMagic  = 0xA7
	frameHeader = 8
	// frameMaxData bounds one frame, so a reader never holds more than a
	// page plus one frame.
	frameMaxData = 1 << 20
	logDirName   = "log"
)

// errCursorInvalid is a cursor that is not a frame boundary of this log.
var errCursorInvalid = errors.New("cursor is not one this log returned")

// logWriter appends frames; one supervisor owns it.
type logWriter struct {
	mu       sync.Mutex
	dir      string
	segMax   int64
	cur      *os.File
	curStart int64
	offset   int64
}

// openLogWriter starts a log (or continues one) in dir/log, rotating at
// half of maxBytes.
func openLogWriter(dir string, maxBytes int64) (*logWriter, error) {
	ld := filepath.Join(dir, logDirName)
	if err := os.MkdirAll(ld, 0o700); err != nil {
		return nil, err
	}
	w := &logWriter{dir: ld, segMax: max(maxBytes/2, 4096)}
	segs, err := listSegments(ld)
	if err != nil {
		return nil, err
	}
	if n := len(segs); n > 0 {
		last := segs[n-1]
		f, err := os.OpenFile(filepath.Join(ld, segmentName(last.start)), os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		w.cur, w.curStart, w.offset = f, last.start, last.start+info.Size()
		return w, nil
	}
	return w, w.rotate()
}

func (w *logWriter) rotate() error {
	if w.cur != nil {
		if err := w.cur.Close(); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(filepath.Join(w.dir, segmentName(w.offset)), os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	w.cur, w.curStart = f, w.offset
	segs, err := listSegments(w.dir)
	if err != nil {
		return err
	}
	for i := 0; i < len(segs)-2; i++ {
		if err := os.Remove(filepath.Join(w.dir, segmentName(segs[i].start))); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// write appends p as frames of stream, in one write each.
func (w *logWriter) write(stream byte, p []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(p) > 0 {
		n := min(len(p), frameMaxData)
		if w.offset-w.curStart >= w.segMax {
			if err := w.rotate(); err != nil {
				return err
			}
		}
		buf := make([]byte, frameHeader+n)
		buf[0], buf[1] = frameMagic, stream
		binary.BigEndian.PutUint32(buf[4:], uint32(n))
		copy(buf[frameHeader:], p[:n])
		if _, err := w.cur.Write(buf); err != nil {
			return err
		}
		w.offset += int64(len(buf))
		p = p[n:]
	}
	return nil
}

func (w *logWriter) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur == nil {
		return nil
	}
	return w.cur.Close()
}

// streamWriter is one stream of a log as an io.Writer.
type streamWriter struct {
	log    *logWriter
	stream byte
}

func (s streamWriter) Write(p []byte) (int, error) {
	if err := s.log.write(s.stream, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

type segment struct{ start int64 }

func segmentName(start int64) string { return fmt.Sprintf("%020d", start) }

func listSegments(dir string) ([]segment, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	segs := make([]segment, 0, len(entries))
	for _, e := range entries {
		if n, err := strconv.ParseInt(e.Name(), 10, 64); err == nil && len(e.Name()) == 20 {
			segs = append(segs, segment{start: n})
		}
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].start < segs[j].start })
	return segs, nil
}

// logChunk is a run of output from one stream: the frames' data, in
// order, still in the buffer they were read into (no copy is made).
type logChunk struct {
	stream byte
	pieces [][]byte
	size   int
}

// bytes is the chunk's data in one slice.
func (c *logChunk) bytes() []byte {
	if len(c.pieces) == 1 {
		return c.pieces[0]
	}
	out := make([]byte, 0, c.size)
	for _, p := range c.pieces {
		out = append(out, p...)
	}
	return out
}

// logPage is what one read of a log returns.
type logPage struct {
	chunks  []logChunk
	next    int64
	dropped int64
	bytes   int
	// bufs are the read buffers its chunks point into, from readBuffers.
	bufs []*[]byte
}

// readBuffers keeps the page-sized buffers a log is read into: a follower
// reads page after page, and each is done with once its document is
// written.
var readBuffers = sync.Pool{New: func() any { b := make([]byte, 0, ReadMaxBytes+frameHeader); return &b }}

func (p *logPage) buffer(n int) []byte {
	bp := readBuffers.Get().(*[]byte)
	if cap(*bp) < n {
		*bp = make([]byte, n)
	}
	p.bufs = append(p.bufs, bp)
	return (*bp)[:n]
}

// release hands the page's buffers back; its chunks are invalid after.
func (p *logPage) release() {
	for _, bp := range p.bufs {
		readBuffers.Put(bp)
	}
	p.bufs, p.chunks = nil, nil
}

// readLog returns the frames after cursor after, up to maxBytes of output
// (always at least one whole frame when one is there), merging neighbouring
// frames of the same stream.
func readLog(dir string, after int64, maxBytes int) (*logPage, error) {
	for attempt := 0; ; attempt++ {
		page, err := readLogOnce(filepath.Join(dir, logDirName), after, maxBytes)
		// A segment dropped between listing and opening: list again.
		if os.IsNotExist(err) && attempt < 3 {
			continue
		}
		return page, err
	}
}

func readLogOnce(ld string, after int64, maxBytes int) (*logPage, error) {
	if after < 0 {
		return nil, errCursorInvalid
	}
	segs, err := listSegments(ld)
	if err != nil {
		return nil, err
	}
	page := &logPage{next: after}
	if len(segs) == 0 {
		if after != 0 {
			return nil, errCursorInvalid
		}
		return page, nil
	}
	if after < segs[0].start {
		page.dropped = segs[0].start - after
		page.next = segs[0].start
	}
	i := sort.Search(len(segs), func(i int) bool { return segs[i].start > page.next }) - 1
	for ; i < len(segs); i++ {
		f, err := os.Open(filepath.Join(ld, segmentName(segs[i].start)))
		if err != nil {
			return nil, err
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		end := segs[i].start + info.Size()
		if page.next > end {
			f.Close()
			return nil, errCursorInvalid
		}
		full, err := page.fill(f, page.next-segs[i].start, end-page.next, maxBytes)
		f.Close()
		if err != nil || full || page.next < end {
			return page, err
		}
	}
	return page, nil
}

// fill reads whole frames from f at off, where avail bytes are written,
// into the page; it reports whether the page is full. A frame still being
// written at the end is left for the next read.
func (p *logPage) fill(f *os.File, off, avail int64, maxBytes int) (bool, error) {
	for avail >= frameHeader {
		room := maxBytes - p.bytes
		if room <= 0 {
			return true, nil
		}
		b := p.buffer(int(min(avail, int64(room)+frameHeader)))
		n, err := f.ReadAt(b, off)
		if err != nil && err != io.EOF {
			return false, err
		}
		b = b[:n]
		consumed := 0
		for len(b)-consumed >= frameHeader {
			h := b[consumed:]
			if h[0] != frameMagic || streamNames[h[1]] == "" || h[2] != 0 || h[3] != 0 {
				return false, errCursorInvalid
			}
			size := int(binary.BigEndian.Uint32(h[4:]))
			if size > frameMaxData {
				return false, errCursorInvalid
			}
			whole := frameHeader + size
			if int64(consumed+whole) > avail {
				return false, nil // still being written
			}
			if size > maxBytes-p.bytes && p.bytes > 0 {
				return true, nil
			}
			if consumed+whole > len(b) {
				// One frame larger than the page: it is returned whole.
				fb := make([]byte, whole)
				if _, err := f.ReadAt(fb, off+int64(consumed)); err != nil && err != io.EOF {
					return false, err
				}
				h = fb
			}
			p.add(h[1], h[frameHeader:whole])
			consumed += whole
			p.next += int64(whole)
		}
		off += int64(consumed)
		avail -= int64(consumed)
	}
	return false, nil
}

func (p *logPage) add(stream byte, data []byte) {
	if n := len(p.chunks); n > 0 && p.chunks[n-1].stream == stream {
		p.chunks[n-1].pieces = append(p.chunks[n-1].pieces, data)
		p.chunks[n-1].size += len(data)
	} else {
		p.chunks = append(p.chunks, logChunk{stream: stream, pieces: [][]byte{data}, size: len(data)})
	}
	p.bytes += len(data)
}
