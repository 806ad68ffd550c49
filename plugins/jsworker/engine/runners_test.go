package engine

import "testing"

// Sequential calls reuse the goroutines that ran the calls before (and
// prepared their spares), rather than starting one per call.
func TestRunnersAreReused(t *testing.T) {
	p := compileModule(t, `export default function (input) { return { n: input.n + 1 } }`)
	before := runnersStarted.Load()
	for i := 0; i < 50; i++ {
		res, err := call(t, p, `{"n":1}`, quick)
		wantOutput(t, res, err, `{"n":2}`)
	}
	if started := runnersStarted.Load() - before; started > 4 {
		t.Fatalf("50 calls started %d runners; they should reuse a few", started)
	}
}

// A runner runs one function at a time: calls at once each get their own.
func TestConcurrentCallsGetRunnersOfTheirOwn(t *testing.T) {
	p := compileModule(t, `export default async function (input) { await null; return { n: input.n } }`)
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			res, err := Run(t.Context(), p, Call{Input: []byte(`{"n":3}`), Clock: testClock, Seed: 1})
			if err == nil && string(res.Output) != `{"n":3}` {
				err = errorString(res.Output)
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

type errorString string

func (e errorString) Error() string { return "unexpected output " + string(e) }
