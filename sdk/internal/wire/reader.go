package wire

import (
	"errors"
	"io"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// errMalformed is a frame that is not protobuf.
var errMalformed = errors.New("malformed invoke frame")

// reader walks a frame held in the transport's buffers (a large frame is
// many of them) without joining them: it reads field headers and varints
// byte by byte and hands out where each field's bytes lie.
type reader struct {
	bufs mem.BufferSlice
	i    int // the buffer being read
	off  int // the offset within it
	pos  int // the offset within the whole frame
}

func (r *reader) more() bool {
	for r.i < len(r.bufs) && r.off >= r.bufs[r.i].Len() {
		r.i, r.off = r.i+1, 0
	}
	return r.i < len(r.bufs)
}

func (r *reader) byte() (byte, error) {
	if !r.more() {
		return 0, io.ErrUnexpectedEOF
	}
	c := r.bufs[r.i].ReadOnlyData()[r.off]
	r.off++
	r.pos++
	return c, nil
}

func (r *reader) varint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, errMalformed
}

func (r *reader) tag() (protowire.Number, protowire.Type, error) {
	x, err := r.varint()
	if err != nil {
		return 0, 0, err
	}
	num, typ := protowire.DecodeTag(x)
	if num < protowire.MinValidNumber {
		return 0, 0, errMalformed
	}
	return num, typ, nil
}

// forward moves n bytes on.
func (r *reader) forward(n int) error {
	for n > 0 {
		if !r.more() {
			return io.ErrUnexpectedEOF
		}
		step := min(n, r.bufs[r.i].Len()-r.off)
		r.off += step
		r.pos += step
		n -= step
	}
	return nil
}

// bytes reads a length-delimited field's length and moves past its bytes.
func (r *reader) bytes() (span, error) {
	n, err := r.varint()
	if err != nil {
		return span{}, err
	}
	if n > uint64(r.bufs.Len()-r.pos) {
		return span{}, io.ErrUnexpectedEOF
	}
	s := span{off: r.pos, n: int(n), set: true}
	return s, r.forward(int(n))
}

// skip moves past a field this codec does not read, as protobuf ignores
// fields it does not know.
func (r *reader) skip(typ protowire.Type) error {
	switch typ {
	case protowire.VarintType:
		_, err := r.varint()
		return err
	case protowire.Fixed32Type:
		return r.forward(4)
	case protowire.Fixed64Type:
		return r.forward(8)
	case protowire.BytesType:
		_, err := r.bytes()
		return err
	}
	return errMalformed
}

// appendSpan appends s's bytes to dst, copying each buffer's part once.
func (r *reader) appendSpan(dst []byte, s span) []byte {
	skip, left := s.off, s.n
	for _, b := range r.bufs {
		d := b.ReadOnlyData()
		if skip >= len(d) {
			skip -= len(d)
			continue
		}
		part := d[skip:min(len(d), skip+left)]
		dst = append(dst, part...)
		left -= len(part)
		skip = 0
		if left == 0 {
			break
		}
	}
	return dst
}
