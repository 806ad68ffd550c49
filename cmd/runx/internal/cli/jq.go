package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/itchyny/gojq"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// jqTimeout bounds one --jq evaluation: a filter over a command's document
// takes milliseconds, and one that loops or builds without end is stopped.
var jqTimeout = 2 * time.Second

// JQ is a compiled --jq expression.
type JQ struct {
	expr string
	code *gojq.Code
}

// CompileJQ compiles a --jq expression. One that does not parse or compile
// is a usage error (jq_invalid). The expression reads nothing but the
// document: no environment ($ENV and env are empty: gojq reads none unless
// given a loader, and the empty one keeps it so) and no further inputs
// (input and inputs do not compile without an input source).
func CompileJQ(expr string) (*JQ, error) {
	q, err := gojq.Parse(expr)
	if err == nil {
		var code *gojq.Code
		code, err = gojq.Compile(q, gojq.WithEnvironLoader(func() []string { return nil }))
		if err == nil {
			return &JQ{expr: expr, code: code}, nil
		}
	}
	return nil, &UsageError{Code: errcode.JQInvalid, Msg: fmt.Sprintf("--jq %q is not a jq expression runx can run: %v", expr, err)}
}

// Apply runs the expression over v (any value PrintJSON takes) and writes
// each result on its own line: a string raw, any other value as compact
// JSON. An evaluation that fails or outlasts its bound is a jq_failed error;
// the results before it are written.
func (j *JQ) Apply(ctx context.Context, w io.Writer, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, jqTimeout)
	defer cancel()
	var out bytes.Buffer
	iter := j.code.RunWithContext(ctx, doc)
	for {
		r, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := r.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break
			}
			if _, werr := w.Write(out.Bytes()); werr != nil {
				return werr
			}
			if ctx.Err() != nil {
				err = fmt.Errorf("stopped after %s", jqTimeout)
			}
			return contract.Errorf(errcode.JQFailed, "--jq %q failed on the command's document: %v", j.expr, err)
		}
		if s, isString := r.(string); isString {
			out.WriteString(s)
		} else {
			b, _ := gojq.Marshal(r)
			out.Write(b)
		}
		out.WriteByte('\n')
	}
	_, err = w.Write(out.Bytes())
	return err
}

// jqOut is a stdout whose JSON documents PrintJSON passes through a --jq
// expression; anything else written to it passes unchanged.
type jqOut struct {
	io.Writer
	jq *JQ

	mu  sync.Mutex
	err error
}

// WithJQ is w with every document PrintJSON prints to it filtered by jq.
func WithJQ(w io.Writer, jq *JQ) io.Writer { return &jqOut{Writer: w, jq: jq} }

// JQFailure is the first evaluation error of the --jq expression on w, if
// w filters: PrintJSON records it rather than returning it, so a command
// that ignores PrintJSON's error still ends with it (root reports it).
func JQFailure(w io.Writer) error {
	o, ok := w.(*jqOut)
	if !ok {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// unfiltered is w without its --jq filter: an error document is printed
// whole, so a failure is never filtered away.
func unfiltered(w io.Writer) io.Writer {
	if o, ok := w.(*jqOut); ok {
		return o.Writer
	}
	return w
}

// printFiltered prints v through o's expression, recording a failure.
func (o *jqOut) printFiltered(v any) error {
	err := o.jq.Apply(context.Background(), o.Writer, v)
	var cerr *contract.Error
	if errors.As(err, &cerr) {
		o.mu.Lock()
		if o.err == nil {
			o.err = err
		}
		o.mu.Unlock()
		return nil
	}
	return err
}

// AddJQFlag gives root the persistent --jq flag: on any command with
// --json, --jq <expr> implies --json and filters the document it prints
// (WithJQ); on one without, it is refused (jq_unsupported).
func AddJQFlag(root *cobra.Command, f *Factory) {
	var expr string
	root.PersistentFlags().StringVar(&expr, "jq", "", "filter the --json document with a jq expression (implies --json; strings print raw)")
	next := root.PersistentPreRunE
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if cmd.Flags().Changed("jq") {
			if err := useJQ(cmd, f, expr); err != nil {
				return err
			}
		}
		if next != nil {
			return next(cmd, args)
		}
		return nil
	}
}

// useJQ turns on cmd's --json and filters its stdout by expr.
func useJQ(cmd *cobra.Command, f *Factory, expr string) error {
	if cmd.Flags().Lookup("json") == nil {
		return &UsageError{Code: errcode.JQUnsupported, Msg: fmt.Sprintf("%s prints no JSON document (it has no --json), so --jq has nothing to filter", cmd.CommandPath())}
	}
	jq, err := CompileJQ(expr)
	if err != nil {
		return err
	}
	if err := cmd.Flags().Set("json", "true"); err != nil {
		return err
	}
	f.IO.Out = WithJQ(f.IO.Out, jq)
	return nil
}
