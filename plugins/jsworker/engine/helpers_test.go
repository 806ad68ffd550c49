package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

// testClock is a fixed run clock, far from any real now.
var testClock = time.Date(2031, time.March, 4, 5, 6, 7, 0, time.UTC)

// closure builds a Source from file texts; the entry is the first name.
func closure(entry string, files map[string]string) Source {
	src := Source{Entry: entry, Files: map[string][]byte{}}
	for name, text := range files {
		src.Files[name] = []byte(text)
	}
	return src
}

// compileModule bundles a one-file module uncached.
func compileModule(tb testing.TB, text string) *Program {
	tb.Helper()
	return compileClosure(tb, closure("main.mjs", map[string]string{"main.mjs": text}))
}

func compileClosure(tb testing.TB, src Source) *Program {
	tb.Helper()
	p, err := NewCache(0).Bundle(src)
	if err != nil {
		tb.Fatalf("bundle: %v", err)
	}
	return p
}

// call runs p with a JSON input and the test clock, failing the test if the
// call does not return within bound.
func call(tb testing.TB, p *Program, input string, bound time.Duration, edit ...func(*Call)) (Result, error) {
	tb.Helper()
	c := Call{Input: []byte(input), Clock: testClock, Seed: 1}
	for _, e := range edit {
		e(&c)
	}
	start := time.Now()
	res, err := Run(context.Background(), p, c)
	if took := time.Since(start); took > bound {
		tb.Fatalf("the call took %v, more than %v", took, bound)
	}
	return res, err
}

// wantCode asserts that err is an *Error with code, and returns it.
func wantCode(tb testing.TB, err error, code errcode.Code) *Error {
	tb.Helper()
	var e *Error
	if !errors.As(err, &e) {
		tb.Fatalf("got error %v, want *Error with code %s", err, code)
	}
	if e.Code != code {
		tb.Fatalf("got code %s (%s), want %s", e.Code, e.Message, code)
	}
	return e
}

// wantOutput asserts a successful call answered exactly want.
func wantOutput(tb testing.TB, res Result, err error, want string) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("call failed: %v", err)
	}
	if string(res.Output) != string(want) {
		tb.Fatalf("output %s, want %s", res.Output, want)
	}
}
