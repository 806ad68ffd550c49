package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	"golang.org/x/term"
)

// ExitCode is a process exit status with a meaning.
type ExitCode int

// Exit codes (docs/cli.md, the conventions of all commands).
const (
	ExitOK          ExitCode = 0   // sealed completed, or paused
	ExitFailed      ExitCode = 1   // sealed with another outcome, or a refused start
	ExitUsage       ExitCode = 2   // the command line is wrong
	ExitInterrupted ExitCode = 130 // SIGINT, or a second SIGTERM
	ExitTerminated  ExitCode = 143 // stopped by SIGTERM
)

// IO is a command's streams.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// OutTerminal and ErrTerminal say whether stdout and stderr are a
	// terminal, decided from the real file descriptors (Terminal) before
	// any wrapper hides them.
	OutTerminal bool
	ErrTerminal bool
	// ErrWidth is stderr's terminal width, 0 when unknown.
	ErrWidth int
	// NoColor is --no-color: no colour even on a terminal.
	NoColor bool
	// Quiet is --quiet: no progress on stderr.
	Quiet bool
	// Stopping, when set, reports whether a signal is stopping this
	// invocation, and then the error and exit code it stops with. A failure
	// that arrives while runx stops (a plugin that cannot start any more, a
	// store closed under a call) is the stop's, so ReportError reports the
	// stop in its place.
	Stopping func() (body *contract.ErrorBody, code ExitCode, ok bool)
}

// StdIO is the process's streams.
func StdIO() *IO {
	width, _, _ := term.GetSize(int(os.Stderr.Fd()))
	return &IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, OutTerminal: Terminal(os.Stdout), ErrTerminal: Terminal(os.Stderr), ErrWidth: width}
}

// UsageError marks a wrong command line (exit 2).
// Code, when set, names the wrong part more closely than usage_error.
type UsageError struct {
	Msg  string
	Code errcode.Code
}

func (e *UsageError) Error() string { return e.Msg }

// ErrorCode is e's Code, or usage_error.
func (e *UsageError) ErrorCode() errcode.Code {
	if e.Code != "" {
		return e.Code
	}
	return errcode.UsageError
}

// Usagef makes a usage error.
func Usagef(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// ErrorDocumentSchema names the JSON document of a failed command.
const ErrorDocumentSchema = "runx.error.v1"

// DocumentStatus is the status a failed command's document carries.
type DocumentStatus string

// StatusError is the one status of an error document. No run's envelope
// carries it (contract.RunStatus), so a caller tells the two apart by it.
const StatusError DocumentStatus = "error"

// ErrorDocument is the JSON document a failed command prints with --json
// (docs/cli.md): {"schema": "runx.error.v1", "status": "error", "error":
// {"code", "message"}}. Its fields are in the order the document has
// always been written in.
type ErrorDocument struct {
	Error  *contract.ErrorBody `json:"error"`
	Schema string              `json:"schema"`
	Status DocumentStatus      `json:"status"`
}

// NewErrorDocument is the error document for body.
func NewErrorDocument(body *contract.ErrorBody) ErrorDocument {
	return ErrorDocument{Error: body, Schema: ErrorDocumentSchema, Status: StatusError}
}

// ReportError presents err and returns its exit code: with --json one JSON
// document on stdout, otherwise one line on stderr.
func ReportError(io *IO, asJSON bool, err error) ExitCode {
	code := ExitFailed
	var ue *UsageError
	if errors.As(err, &ue) {
		code = ExitUsage
	}
	body := contract.BodyOf(err)
	if io.Stopping != nil {
		if stop, stopCode, ok := io.Stopping(); ok {
			body, code = stop, stopCode
		}
	}
	if asJSON {
		_ = PrintJSON(unfiltered(io.Out), NewErrorDocument(body))
		return code
	}
	fmt.Fprintf(io.Err, "runx: %s [%s]\n", body.Message, body.Code)
	return code
}

// PrintJSON writes exactly one JSON document; on a stdout given --jq
// (WithJQ), the expression's results over it.
func PrintJSON(w io.Writer, v any) error {
	if o, ok := w.(*jqOut); ok {
		return o.printFiltered(v)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
