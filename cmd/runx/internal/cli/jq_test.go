package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// doc is a command's --json document, as a command hands it to PrintJSON.
var doc = map[string]any{
	"schema": "runx.history.v1",
	"runs": []map[string]any{
		{"run_id": "r1", "status": "sealed", "steps": 2},
		{"run_id": "r2", "status": "paused", "steps": 1},
	},
	"big": uint64(1) << 62,
}

// filtered prints doc through expr as PrintJSON does on a --jq stdout.
func filtered(t *testing.T, expr string) (string, error) {
	t.Helper()
	jq, err := CompileJQ(expr)
	if err != nil {
		t.Fatalf("compile %q: %v", expr, err)
	}
	var out bytes.Buffer
	w := WithJQ(&out, jq)
	if err := PrintJSON(w, doc); err != nil {
		t.Fatalf("PrintJSON: %v", err)
	}
	return out.String(), JQFailure(w)
}

// --jq filters the document: strings raw, other values compact JSON, one
// result a line; numbers keep their precision.
func TestJQFiltersTheDocument(t *testing.T) {
	for expr, want := range map[string]string{
		`.runs[0].status`:              "sealed\n",
		`.runs[].run_id`:               "r1\nr2\n",
		`.runs[1]`:                     `{"run_id":"r2","status":"paused","steps":1}` + "\n",
		`[.runs[].steps] | add`:        "3\n",
		`.big`:                         "4611686018427387904\n",
		`.runs[] | select(.steps > 5)`: "",
		`$ENV | length`:                "0\n",
		`env | length`:                 "0\n",
	} {
		got, err := filtered(t, expr)
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", expr, got, err, want)
		}
	}
}

// An expression that does not parse or compile is a usage error
// (jq_invalid) before anything runs; so is one reading further input,
// which runx never gives.
func TestJQInvalidIsAUsageError(t *testing.T) {
	for _, expr := range []string{`.runs[`, `nosuchfunction(1)`, `$undefined`, `input`, `[inputs]`} {
		_, err := CompileJQ(expr)
		var ue *UsageError
		if !errors.As(err, &ue) || ue.ErrorCode() != errcode.JQInvalid {
			t.Errorf("%s: error %v; want usage error jq_invalid", expr, err)
		}
	}
}

// An expression that fails on the document is a typed jq_failed error,
// recorded on the writer; results before it are printed. One running
// without end is stopped at its bound so.
func TestJQFailureIsTyped(t *testing.T) {
	old := jqTimeout
	jqTimeout = 200 * time.Millisecond
	defer func() { jqTimeout = old }()
	for expr, wantOut := range map[string]string{
		`.runs[0].status, error("boom")`: "sealed\n",
		`.schema + 1`:                    "",
		`last(range(1e18))`:              "",
	} {
		got, err := filtered(t, expr)
		if contract.CodeOf(err) != errcode.JQFailed || got != wantOut {
			t.Errorf("%s: got %q, %v; want %q and jq_failed", expr, got, err, wantOut)
		}
	}
}

// An error document is never filtered: a failed command's error reaches
// the caller whole.
func TestJQLeavesErrorDocumentsWhole(t *testing.T) {
	jq, err := CompileJQ(`.runs`)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	io := &IO{Out: WithJQ(&out, jq), Err: &bytes.Buffer{}}
	ReportError(io, true, contract.Errorf(errcode.InternalError, "broke"))
	if !strings.Contains(out.String(), `"code": "internal_error"`) {
		t.Errorf("error document %q; want it whole", out.String())
	}
}

// --jq turns on a command's --json and filters what it prints; on a
// command with no --json it is refused (jq_unsupported), and an invalid
// expression before the command runs (jq_invalid).
func TestJQFlag(t *testing.T) {
	run := func(args ...string) (string, bool, error) {
		var out bytes.Buffer
		f := &Factory{IO: &IO{Out: &out, Err: &bytes.Buffer{}}}
		var asJSON, ran bool
		root := &cobra.Command{Use: "runx", SilenceUsage: true, SilenceErrors: true}
		withJSON := &cobra.Command{Use: "doc", RunE: func(*cobra.Command, []string) error {
			ran = true
			if asJSON {
				return PrintJSON(f.IO.Out, doc)
			}
			_, err := f.IO.Out.Write([]byte("human\n"))
			return err
		}}
		withJSON.Flags().BoolVar(&asJSON, "json", false, "")
		plain := &cobra.Command{Use: "plain", RunE: func(*cobra.Command, []string) error { ran = true; return nil }}
		root.AddCommand(withJSON, plain)
		AddJQFlag(root, f)
		root.SetArgs(args)
		err := root.Execute()
		return out.String(), ran, err
	}
	if out, ran, err := run("doc", "--jq", ".runs[1].status"); err != nil || !ran || out != "paused\n" {
		t.Errorf("doc --jq: %q, ran %v, %v; want paused", out, ran, err)
	}
	if out, _, err := run("doc"); err != nil || out != "human\n" {
		t.Errorf("doc: %q, %v; want the human output", out, err)
	}
	for args, code := range map[string]errcode.Code{
		"plain --jq .": errcode.JQUnsupported,
		"doc --jq .[":  errcode.JQInvalid,
	} {
		_, ran, err := run(strings.Fields(args)...)
		var ue *UsageError
		if !errors.As(err, &ue) || ue.ErrorCode() != code || ran {
			t.Errorf("%s: %v, ran %v; want usage error %s", args, err, ran, code)
		}
	}
}
