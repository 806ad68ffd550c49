package engine

import (
	"runtime"
	"sync/atomic"

	"github.com/dop251/goja"
)

// A fresh runtime per call is the isolation every call relies on: nothing a
// module does to its globals, prototypes or intrinsics can reach another
// call, because no other call ever runs in that runtime. Making one
// (goja.New, the captured intrinsics, the refusal of code generation, the
// guards, Runx) was most of a small module's call, and none of it depends
// on the call. So after a call the engine prepares the next call's runtime
// ahead, while a worker would otherwise wait for the kernel to seal. A
// spare is a runtime no JavaScript but the engine's setup has run in; it is
// handed to exactly one invocation, through a channel, and never returns.
// What a call does is therefore as invisible to the next as before: a
// runtime is still used once.

// prepared is a runtime with the call-independent setup done.
type prepared struct {
	rt *goja.Runtime
	in *intrinsics
	// stop is the invocation's enforce, set by setupRuntime before any
	// module code runs; the guards installed ahead reach it through
	// enforce.
	stop func(*Error)
}

func (b *prepared) enforce(e *Error) { b.stop(e) }

// spares holds at most one prepared runtime; building is set while one is
// being made, so at most one is made at a time and none is made to be
// thrown away.
var spares = struct {
	slot     chan *prepared
	building atomic.Bool
	// taken counts the runtimes calls took from the slot, for tests.
	taken atomic.Int64
}{slot: make(chan *prepared, 1)}

// takeSpare returns the prepared spare, or nil when there is none.
func takeSpare() *prepared {
	select {
	case b := <-spares.slot:
		spares.taken.Add(1)
		return b
	default:
		return nil
	}
}

// refillSpare starts preparing a spare unless one is ready or on its way.
// The builder yields first: in a worker (one processor) the call's answer
// is still to be written, and it should go out before the spare is made.
func refillSpare() {
	if len(spares.slot) > 0 || !spares.building.CompareAndSwap(false, true) {
		return
	}
	goRun(func() {
		defer spares.building.Store(false)
		runtime.Gosched()
		if b := prepareSpare(); b != nil {
			select {
			case spares.slot <- b:
			default: // unreachable while building is held; never block
			}
		}
	})
}

// prepareSpare prepares a runtime off any call. A failure, or a panic in
// goja, leaves no spare: the next call prepares its own on its own
// goroutine, where the same failure is a typed error.
func prepareSpare() (b *prepared) {
	defer func() {
		if recover() != nil {
			b = nil
		}
	}()
	b, err := prepareRuntime(goja.New())
	if err != nil {
		return nil
	}
	return b
}
