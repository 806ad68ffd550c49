// Package wire is runx.plugin.v1's gRPC codec. It writes and reads exactly
// the protobuf the standard codec does (a peer using the standard codec
// sees no difference), and differs only in where a large chunk's bytes
// go: a sent chunk crosses into the transport without first being copied
// into a marshal buffer, and a received answer's chunk is copied once,
// from the transport's buffers straight into the buffer that becomes the
// call's output. The standard codec copied a 4 MiB page three times on
// the host (materialising the frame, unmarshalling its bytes field, and
// joining the chunks) and once more in the plugin.
package wire

import (
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	gproto "google.golang.org/protobuf/proto"
)

// Codec is the codec both sides force on the Capability service. Its name
// is the standard codec's, so the content type on the wire is unchanged.
type Codec struct{}

// Name is "proto": the bytes are protobuf, whoever writes them.
func (Codec) Name() string { return proto.Name }

// zeroCopyMin is the smallest chunk worth sending by reference: below it
// one copy into a single buffer costs less than the extra buffers.
const zeroCopyMin = 32 << 10

func standard() encoding.CodecV2 { return encoding.GetCodecV2(proto.Name) }

// Marshal writes an Invoke frame with a large chunk as three buffers (the
// fields before the chunk, the chunk itself by reference, the fields after
// it); everything else as the standard codec does.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	switch m := v.(type) {
	case *pluginv1.InvokeResponse:
		if len(m.OutputChunk) >= zeroCopyMin {
			// output_size first, so a receiver knows the whole size
			// before it meets the chunk; field order is free in protobuf.
			var head []byte
			if m.OutputSize != 0 {
				head = protowire.AppendTag(head, 3, protowire.VarintType)
				head = protowire.AppendVarint(head, uint64(m.OutputSize))
			}
			head = protowire.AppendTag(head, 1, protowire.BytesType)
			head = protowire.AppendVarint(head, uint64(len(m.OutputChunk)))
			tail, err := gproto.Marshal(&pluginv1.InvokeResponse{Result: m.Result})
			if err != nil {
				return nil, err
			}
			return mem.BufferSlice{mem.SliceBuffer(head), mem.SliceBuffer(m.OutputChunk), mem.SliceBuffer(tail)}, nil
		}
	case *pluginv1.InvokeRequest:
		if len(m.InputChunk) >= zeroCopyMin {
			head, err := gproto.Marshal(&pluginv1.InvokeRequest{Start: m.Start, InputEnd: m.InputEnd})
			if err != nil {
				return nil, err
			}
			head = protowire.AppendTag(head, 2, protowire.BytesType)
			head = protowire.AppendVarint(head, uint64(len(m.InputChunk)))
			return mem.BufferSlice{mem.SliceBuffer(head), mem.SliceBuffer(m.InputChunk)}, nil
		}
	}
	return standard().Marshal(v)
}

// Answer is what a host receives an Invoke or Preview answer into, frame
// after frame: each frame's output chunk is appended to Output, in a
// buffer of the announced size when the plugin announced one.
type Answer struct {
	// Output is the output received so far.
	Output []byte
	// Limit bounds Output: a frame that would take it past Limit is not
	// copied, and sets Over.
	Limit int64
	Over  bool
	// Announced is the output size the first frame announced (0: none).
	Announced int64
	// Result is set by the frame that carries it, which is the last.
	Result *pluginv1.InvokeResult
}

// errAnnounced refuses a second, different announcement.
var errAnnounced = errors.New("plugin announced its output size twice, differently")

// Unmarshal reads an answer frame into an *Answer; anything else as the
// standard codec does.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	a, ok := v.(*Answer)
	if !ok {
		return standard().Unmarshal(data, v)
	}
	// Two passes over the field headers: the first finds the chunk and
	// any announcement wherever they sit, the second copies the chunk once.
	var chunk, result span
	r := reader{bufs: data}
	for r.more() {
		num, typ, err := r.tag()
		if err != nil {
			return err
		}
		switch {
		case num == 1 && typ == protowire.BytesType:
			if chunk, err = r.bytes(); err != nil {
				return err
			}
		case num == 2 && typ == protowire.BytesType:
			if result, err = r.bytes(); err != nil {
				return err
			}
		case num == 3 && typ == protowire.VarintType:
			n, err := r.varint()
			if err != nil {
				return err
			}
			if a.Announced != 0 && a.Announced != int64(n) {
				return errAnnounced
			}
			a.Announced = int64(n)
		default:
			if err := r.skip(typ); err != nil {
				return err
			}
		}
	}
	if chunk.n > 0 {
		if int64(len(a.Output)+chunk.n) > a.Limit {
			a.Over = true
			return nil
		}
		if a.Output == nil && a.Announced > 0 {
			a.Output = freshOutput(int(min(a.Announced, a.Limit)))
		}
		a.Output = r.appendSpan(a.Output, chunk)
	}
	if result.set {
		a.Result = &pluginv1.InvokeResult{}
		if err := gproto.Unmarshal(r.appendSpan(nil, result), a.Result); err != nil {
			return fmt.Errorf("invoke result: %w", err)
		}
	}
	return nil
}

// span is a field's bytes in the frame: from offset off, n bytes.
type span struct {
	off, n int
	set    bool
}
