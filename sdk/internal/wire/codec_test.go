package wire

import (
	"bytes"
	"testing"

	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc/mem"
	gproto "google.golang.org/protobuf/proto"
)

// split cuts a frame into buffers of n bytes, as the transport holds a
// large frame in many.
func split(b []byte, n int) mem.BufferSlice {
	var s mem.BufferSlice
	for len(b) > n {
		s = append(s, mem.SliceBuffer(b[:n]))
		b = b[n:]
	}
	return append(s, mem.SliceBuffer(b))
}

func chunk(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

// TestMarshalReadsAsTheStandardCodec: what the codec writes, by reference
// or not, the standard protobuf decoder reads as the same message.
func TestMarshalReadsAsTheStandardCodec(t *testing.T) {
	result := &pluginv1.InvokeResult{Status: "ok", Code: "c", Message: "m", Evidence: []byte(`{"e":1}`), OutputSize: 70000}
	for _, m := range []gproto.Message{
		&pluginv1.InvokeResponse{OutputChunk: chunk(100)},
		&pluginv1.InvokeResponse{OutputChunk: chunk(70000), OutputSize: 140000},
		&pluginv1.InvokeResponse{OutputChunk: chunk(70000), Result: result},
		&pluginv1.InvokeRequest{Start: &pluginv1.InvokeStart{Capability: "x.y", InputSize: 70000}, InputChunk: chunk(70000), InputEnd: true},
		&pluginv1.InvokeRequest{InputChunk: chunk(40000)},
	} {
		data, err := Codec{}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got := m.ProtoReflect().New().Interface()
		if err := gproto.Unmarshal(data.Materialize(), got); err != nil {
			t.Fatal(err)
		}
		if !gproto.Equal(got, m) {
			t.Errorf("read back %v, want %v", got, m)
		}
	}
}

// TestAnswerCollectsFramesIntoOneBuffer: the frames of one answer, each
// held in many buffers, land in one output of the announced size.
func TestAnswerCollectsFramesIntoOneBuffer(t *testing.T) {
	out := chunk(150000)
	frames := []*pluginv1.InvokeResponse{
		{OutputChunk: out[:70000], OutputSize: int64(len(out))},
		{OutputChunk: out[70000:140000]},
		{OutputChunk: out[140000:], Result: &pluginv1.InvokeResult{Status: "ok", OutputSize: int64(len(out))}},
	}
	a := Answer{Limit: 1 << 20}
	for i, f := range frames {
		// Written by the standard codec too: a plugin built without this
		// one sends the announcement after the chunk.
		raw, _ := gproto.Marshal(f)
		if err := (Codec{}).Unmarshal(split(raw, 16384), &a); err != nil {
			t.Fatal(err)
		}
		if i == 0 && cap(a.Output) != len(out) {
			t.Fatalf("first frame gave a buffer of %d bytes, want the announced %d", cap(a.Output), len(out))
		}
	}
	if !bytes.Equal(a.Output, out) || a.Result.GetStatus() != "ok" || a.Announced != int64(len(out)) || cap(a.Output) != len(out) {
		t.Fatalf("collected %d bytes (cap %d), result %v", len(a.Output), cap(a.Output), a.Result)
	}
}

// TestAnswerOverLimitIsNotCopied: a chunk past the bound sets Over and is
// not taken; a frame that is not protobuf is an error.
func TestAnswerOverLimitIsNotCopied(t *testing.T) {
	raw, _ := gproto.Marshal(&pluginv1.InvokeResponse{OutputChunk: chunk(1000)})
	a := Answer{Limit: 999}
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(raw)}, &a); err != nil || !a.Over || len(a.Output) != 0 {
		t.Fatalf("err %v, over %v, %d bytes taken", err, a.Over, len(a.Output))
	}
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(raw[:10])}, &Answer{Limit: 1 << 20}); err == nil {
		t.Fatal("a truncated frame was read")
	}
	twice, _ := gproto.Marshal(&pluginv1.InvokeResponse{OutputSize: 5})
	b := Answer{Limit: 1 << 20, Announced: 7}
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(twice)}, &b); err != errAnnounced {
		t.Fatalf("a changed announcement: %v", err)
	}
}

// TestFieldsAreTheCodecs: the codec writes InvokeResponse and
// InvokeRequest field by field, so a field added to either must be added
// to Marshal too; this fails until it is.
func TestFieldsAreTheCodecs(t *testing.T) {
	if n := (&pluginv1.InvokeResponse{}).ProtoReflect().Descriptor().Fields().Len(); n != 3 {
		t.Errorf("InvokeResponse has %d fields; Marshal writes 3", n)
	}
	if n := (&pluginv1.InvokeRequest{}).ProtoReflect().Descriptor().Fields().Len(); n != 3 {
		t.Errorf("InvokeRequest has %d fields; Marshal writes 3", n)
	}
}
