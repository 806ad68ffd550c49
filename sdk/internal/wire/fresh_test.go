package wire

import (
	"testing"
	"time"
	"unsafe"

	"github.com/runxhq/runx/sdk/proto/pluginv1"
)

// waitSpare waits until the buffer made ahead is ready.
func waitSpare(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		spare.mu.Lock()
		ready := !spare.making && spare.buf != nil
		spare.mu.Unlock()
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no buffer was made ahead")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFreshOutputsAreNeverShared: each answer of a page's size gets an
// empty, all-zero buffer of its own, the one made ahead when it fits, and
// a buffer made ahead is handed out once; what one answer writes no other
// sees.
func TestFreshOutputsAreNeverShared(t *testing.T) {
	const n = 1 << 20
	first := freshOutput(n)
	waitSpare(t)
	spare.mu.Lock()
	ahead := unsafe.SliceData(spare.buf)
	spare.mu.Unlock()
	second := freshOutput(n)
	if unsafe.SliceData(second) != ahead {
		t.Fatal("the buffer made ahead was not the next answer's")
	}
	waitSpare(t)
	third := freshOutput(n - 1000) // a little smaller: still fits
	var seen []*byte
	for i, b := range [][]byte{first, second, third} {
		if len(b) != 0 || cap(b) < n-1000 {
			t.Fatalf("buffer %d: len %d cap %d", i, len(b), cap(b))
		}
		for _, p := range seen {
			if p == unsafe.SliceData(b) {
				t.Fatalf("buffer %d was handed out twice", i)
			}
		}
		seen = append(seen, unsafe.SliceData(b))
		full := b[:cap(b)]
		for j, c := range full {
			if c != 0 {
				t.Fatalf("buffer %d is not clear at %d", i, j)
			}
		}
		for j := range full {
			full[j] = byte(i + 1)
		}
	}
	waitSpare(t)
	if big := freshOutput(spareMax + 1); cap(big) != spareMax+1 {
		t.Fatalf("a large answer's buffer has cap %d", cap(big))
	}
	if small := freshOutput(100); cap(small) != 100 {
		t.Fatalf("a small answer's buffer has cap %d", cap(small))
	}
	// One much smaller than the buffer made ahead gets its own.
	spare.mu.Lock()
	ahead = unsafe.SliceData(spare.buf)
	spare.mu.Unlock()
	if b := freshOutput(n / 2); unsafe.SliceData(b) == ahead || cap(b) != n/2 {
		t.Fatalf("a half-size answer got cap %d", cap(b))
	}
	waitSpare(t)
}

// TestAnnouncedAnswersArriveWhole: answers announced at a page's size,
// received one after another, each hold exactly their own chunks.
func TestAnnouncedAnswersArriveWhole(t *testing.T) {
	for i := 0; i < 4; i++ {
		want := chunk(600 << 10)
		for j := range want {
			want[j] += byte(i)
		}
		a := Answer{Limit: 1 << 30}
		for off := 0; off < len(want); off += 200 << 10 {
			m := &pluginv1.InvokeResponse{OutputChunk: want[off : off+200<<10]}
			if off == 0 {
				m.OutputSize = int64(len(want))
			}
			frame, err := Codec{}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := (Codec{}).Unmarshal(split(frame.Materialize(), 16<<10), &a); err != nil {
				t.Fatal(err)
			}
		}
		if string(a.Output) != string(want) {
			t.Fatalf("answer %d differs from what was sent", i)
		}
	}
}

// TestIdleSpareIsLetGo: a buffer made ahead that no answer takes is let
// go after spareKeep, so an idle host holds no page-sized buffer.
func TestIdleSpareIsLetGo(t *testing.T) {
	freshOutput(1 << 20)
	waitSpare(t)
	deadline := time.Now().Add(spareKeep + 10*time.Second)
	for {
		spare.mu.Lock()
		gone := spare.buf == nil
		spare.mu.Unlock()
		if gone {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle buffer made ahead was kept")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
