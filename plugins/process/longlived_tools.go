package process

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

func decodeJSONStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

func now() time.Time { return time.Now().UTC() }

// StartRequest is process.start's input.
type StartRequest struct {
	Command    string            `json:"command"`
	Args       []string          `json:"args,omitempty"`
	Cwd        string            `json:"cwd,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	TTY        *TTY              `json:"tty,omitempty"`
	MaxSeconds int64             `json:"max_seconds,omitempty"`
}

// Process is runx.process.v1: one process and how it stands.
type Process struct {
	Schema     string    `json:"schema"`
	ProcessID  string    `json:"process_id"`
	Kind       Kind      `json:"kind"`
	Actor      string    `json:"actor"`
	RunID      string    `json:"run_id,omitempty"`
	CallID     string    `json:"call_id"`
	Argv       []string  `json:"argv"`
	Cwd        string    `json:"cwd"`
	EnvNames   []string  `json:"env_names,omitempty"`
	TTY        *TTY      `json:"tty,omitempty"`
	MaxSeconds int64     `json:"max_seconds,omitempty"`
	State      State     `json:"state"`
	Running    bool      `json:"running"`
	PID        int       `json:"pid,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	StartedAt  time.Time `json:"started_at,omitzero"`
	EndedAt    time.Time `json:"ended_at,omitzero"`
	ExitCode   *int      `json:"exit_code,omitempty"`
	Signal     string    `json:"signal,omitempty"`
	Message    string    `json:"message,omitempty"`
}

func (v *view) document() *Process {
	p := &Process{
		Schema: ProcessSchema, ProcessID: v.rec.ProcessID, Kind: v.rec.Kind, Actor: v.rec.Actor,
		RunID: v.rec.RunID, CallID: v.rec.CallID, Argv: v.rec.Argv, Cwd: v.rec.Cwd, TTY: v.rec.TTY,
		MaxSeconds: v.rec.MaxSeconds, State: v.state(), Running: v.running(), CreatedAt: v.rec.CreatedAt,
	}
	for k := range v.rec.Env {
		p.EnvNames = append(p.EnvNames, k)
	}
	sortStrings(p.EnvNames)
	if v.confirmed != nil {
		p.PID, p.StartedAt = v.confirmed.PID, v.confirmed.StartedAt
	}
	if v.exit != nil {
		p.EndedAt, p.ExitCode, p.Signal, p.Message = v.exit.EndedAt, v.exit.ExitCode, v.exit.Signal, v.exit.Message
	}
	return p
}

func startProcess(_ context.Context, call *plugin.Call, b *Binding) *plugin.Result {
	var req StartRequest
	if res := decodeStrict(call.Input, &req, StartCapability); res != nil {
		return res
	}
	argv := append([]string{req.Command}, req.Args...)
	if req.Command == "" {
		return plugin.Refused(errcode.ProcessRequestInvalid, "process.start needs a command")
	}
	if res := checkArgv(argv, errcode.ProcessRequestInvalid); res != nil {
		return res
	}
	if req.MaxSeconds == 0 {
		req.MaxSeconds = StartDefaultMaxSeconds
	}
	if req.MaxSeconds < 1 || req.MaxSeconds > StartMaxSeconds {
		return plugin.Refused(errcode.ProcessRequestInvalid, fmt.Sprintf("max_seconds must be between 1 and %d", StartMaxSeconds))
	}
	if t := req.TTY; t != nil && (t.Rows < 1 || t.Cols < 1 || t.Rows > 65535 || t.Cols > 65535) {
		return plugin.Refused(errcode.ProcessRequestInvalid, "tty rows and cols must be between 1 and 65535")
	}
	if call.Context.CallID == "" {
		return plugin.Refused(errcode.ProcessRequestInvalid, "process.start needs the call's id, which keys the start")
	}
	scope, res := pathpolicy.NewScope(call.Context)
	if res != nil {
		return res
	}
	t, res := scope.Resolve(req.Cwd)
	if res != nil {
		return res
	}
	if t.Info == nil || !t.Info.IsDir() {
		return plugin.Refused(errcode.CommandCwdInvalid, fmt.Sprintf("cwd %s is not a directory in the workspace", orRoot(req.Cwd)))
	}
	env := map[string]string{"PATH": os.Getenv("PATH")}
	if env["PATH"] == "" {
		env["PATH"] = defaultSearchPath
	}
	for k, v := range req.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return plugin.Refused(errcode.CommandEnvironmentInvalid, fmt.Sprintf("environment variable %q cannot be passed to a process", k))
		}
		env[k] = v
	}
	path, err := resolveCommand(req.Command, t.Real, env["PATH"])
	if err != nil {
		return plugin.Refused(errcode.ProcessCommandNotFound, fmt.Sprintf("command %q was not found", req.Command))
	}
	sum := sha256.Sum256(call.Input)
	id := startID(call.Context.CallID)
	rec := &record{
		ProcessID: id, Kind: KindProcess, CallID: call.Context.CallID, RunID: call.Context.RunID,
		Actor: b.Actor, Argv: argv, Path: path, Cwd: t.Display, Dir: t.Real, Env: env, TTY: req.TTY,
		MaxSeconds: req.MaxSeconds, LogMaxBytes: LogMaxBytes,
		RequestHash: "sha256:" + hex.EncodeToString(sum[:]), CreatedAt: now(),
	}
	dir := processDir(b.ProjectDir, id)
	err = spawn(dir, rec)
	if errors.Is(err, errStartExists) {
		return resentStart(dir, rec)
	}
	v, lerr := loadView(dir, now)
	if err != nil {
		msg := err.Error()
		if lerr == nil && v.exit != nil && v.exit.Message != "" {
			msg = v.exit.Message
		}
		return plugin.Failed(errcode.ProcessStartFailed, fmt.Sprintf("process %s did not start: %s", id, msg))
	}
	if lerr != nil {
		return plugin.Failed(errcode.ProcessStartFailed, lerr.Error())
	}
	return answer(v.document())
}

// resentStart answers a call sent again: the process its first send
// started, whatever has become of it since.
func resentStart(dir string, rec *record) *plugin.Result {
	v, err := loadView(dir, now)
	if err != nil {
		if os.IsNotExist(err) {
			return plugin.Failed(errcode.EffectUnconfirmed, "an earlier send of this call began a start that recorded nothing")
		}
		return plugin.Failed(errcode.ProcessStartFailed, err.Error())
	}
	if v.rec.RequestHash != rec.RequestHash {
		return plugin.Refused(errcode.ProcessCallConflict, fmt.Sprintf("call %s already started process %s with a different request", rec.CallID, v.rec.ProcessID))
	}
	if err := awaitConfirmed(v, now); err != nil {
		return plugin.Failed(errcode.ProcessStartFailed, err.Error())
	}
	if v.confirmed == nil {
		return plugin.Failed(errcode.EffectUnconfirmed, fmt.Sprintf("process %s was never confirmed by a supervisor: %s", v.rec.ProcessID, v.exit.Message))
	}
	return answer(v.document())
}

// reachable loads a process the caller may reach: its own actor's, or any
// for the person's own view.
func reachable(b *Binding, id string) (*view, *plugin.Result) {
	if id == "" {
		return nil, plugin.Refused(errcode.ProcessRequestInvalid, "process_id is required")
	}
	v, err := loadView(processDir(b.ProjectDir, id), now)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, plugin.Refused(errcode.ProcessNotFound, fmt.Sprintf("no process %s in this project", id))
		}
		return nil, plugin.Failed(errcode.ProcessStateUnreadable, err.Error())
	}
	if v.rec.ProcessID != id || (!b.AllActors && v.rec.Actor != b.Actor) {
		// Another actor's process is not there for this caller.
		return nil, plugin.Refused(errcode.ProcessNotFound, fmt.Sprintf("no process %s in this project", id))
	}
	return v, nil
}

// ReadRequest is process.read's input.
type ReadRequest struct {
	ProcessID string `json:"process_id"`
	After     string `json:"after,omitempty"`
	MaxBytes  int    `json:"max_bytes,omitempty"`
}

// OutputChunk is a run of one stream's output: data when it is UTF-8,
// data_base64 otherwise.
type OutputChunk struct {
	Stream     string `json:"stream"`
	Data       string `json:"data,omitempty"`
	DataBase64 string `json:"data_base64,omitempty"`
}

// Output is runx.process.output.v1.
type Output struct {
	Schema       string        `json:"schema"`
	ProcessID    string        `json:"process_id"`
	Chunks       []OutputChunk `json:"chunks"`
	Cursor       string        `json:"cursor"`
	Bytes        int           `json:"bytes"`
	DroppedBytes int64         `json:"dropped_bytes"`
	Running      bool          `json:"running"`
	State        State         `json:"state"`
	ExitCode     *int          `json:"exit_code,omitempty"`
	Signal       string        `json:"signal,omitempty"`
}

func readProcess(_ context.Context, call *plugin.Call, b *Binding) *plugin.Result {
	var req ReadRequest
	if res := decodeStrict(call.Input, &req, ReadCapability); res != nil {
		return res
	}
	if req.MaxBytes == 0 {
		req.MaxBytes = ReadDefaultMaxBytes
	}
	if req.MaxBytes < 1 || req.MaxBytes > ReadMaxBytes {
		return plugin.Refused(errcode.ProcessRequestInvalid, fmt.Sprintf("max_bytes must be between 1 and %d", ReadMaxBytes))
	}
	var after int64
	if req.After != "" {
		n, err := strconv.ParseInt(req.After, 10, 64)
		if err != nil || n < 0 {
			return plugin.Refused(errcode.ProcessCursorInvalid, fmt.Sprintf("cursor %q is not one process.read returned", req.After))
		}
		after = n
	}
	v, res := reachable(b, req.ProcessID)
	if res != nil {
		return res
	}
	// Whether it runs is read before the log, so an ended process's page
	// that says so holds all it wrote.
	running := v.running()
	page, err := readLog(v.dir, after, req.MaxBytes)
	if err != nil {
		if errors.Is(err, errCursorInvalid) {
			return plugin.Refused(errcode.ProcessCursorInvalid, fmt.Sprintf("cursor %q is not one process.read returned for %s", req.After, req.ProcessID))
		}
		return plugin.Failed(errcode.ProcessLogUnreadable, err.Error())
	}
	out := &Output{
		Schema: ProcessOutputSchema, ProcessID: req.ProcessID,
		Cursor: strconv.FormatInt(page.next, 10), Bytes: page.bytes, DroppedBytes: page.dropped,
		Running: running, State: v.state(),
	}
	if v.exit != nil && !running {
		out.ExitCode, out.Signal = v.exit.ExitCode, v.exit.Signal
	}
	doc := appendOutput(make([]byte, 0, page.bytes+page.bytes/16+512), out, page)
	page.release()
	return plugin.OK(doc, nil)
}

// WriteRequest is process.write's input.
type WriteRequest struct {
	ProcessID string `json:"process_id"`
	Input     string `json:"input"`
}

// WriteResponse is runx.process_write.v1.
type WriteResponse struct {
	Schema         string `json:"schema"`
	ProcessID      string `json:"process_id"`
	Bytes          int    `json:"bytes"`
	AlreadyApplied bool   `json:"already_applied"`
}

func writeProcess(_ context.Context, call *plugin.Call, b *Binding) *plugin.Result {
	var req WriteRequest
	if res := decodeStrict(call.Input, &req, WriteCapability); res != nil {
		return res
	}
	if len(req.Input) > WriteMaxBytes {
		return plugin.Refused(errcode.ProcessRequestInvalid, fmt.Sprintf("input holds %d bytes; one write takes at most %d", len(req.Input), WriteMaxBytes))
	}
	v, res := runningProcess(b, req.ProcessID)
	if res != nil {
		return res
	}
	if v.rec.Kind != KindProcess {
		return plugin.Refused(errcode.ProcessInputUnsupported, fmt.Sprintf("%s is a %s, which takes no input", req.ProcessID, v.rec.Kind))
	}
	rep, res := controlled(v, controlRequest{Op: "write", CallID: call.Context.CallID, Input: req.Input})
	if res != nil {
		return res
	}
	return answer(&WriteResponse{Schema: ProcessWriteSchema, ProcessID: req.ProcessID, Bytes: rep.Bytes, AlreadyApplied: rep.AlreadyApplied})
}

// ResizeRequest is process.resize's input.
type ResizeRequest struct {
	ProcessID string `json:"process_id"`
	Rows      int    `json:"rows"`
	Cols      int    `json:"cols"`
}

func resizeProcess(_ context.Context, call *plugin.Call, b *Binding) *plugin.Result {
	var req ResizeRequest
	if res := decodeStrict(call.Input, &req, ResizeCapability); res != nil {
		return res
	}
	if req.Rows < 1 || req.Cols < 1 || req.Rows > 65535 || req.Cols > 65535 {
		return plugin.Refused(errcode.ProcessRequestInvalid, "rows and cols must be between 1 and 65535")
	}
	v, res := runningProcess(b, req.ProcessID)
	if res != nil {
		return res
	}
	if v.rec.TTY == nil {
		return plugin.Refused(errcode.ProcessNotATerminal, fmt.Sprintf("%s runs without a terminal, so it has no size", req.ProcessID))
	}
	if _, res := controlled(v, controlRequest{Op: "resize", Rows: req.Rows, Cols: req.Cols}); res != nil {
		return res
	}
	return answer(v.document())
}

// IDRequest names one process.
type IDRequest struct {
	ProcessID string `json:"process_id"`
}

func stopProcess(_ context.Context, call *plugin.Call, b *Binding) *plugin.Result {
	var req IDRequest
	if res := decodeStrict(call.Input, &req, StopCapability); res != nil {
		return res
	}
	v, res := reachable(b, req.ProcessID)
	if res != nil {
		return res
	}
	if v.running() {
		if err := stopRunning(v); err != nil {
			return plugin.Failed(errcode.ProcessStopFailed, err.Error())
		}
		if v, res = reachable(b, req.ProcessID); res != nil {
			return res
		}
	}
	return answer(v.document())
}

// stopRunning stops a process and waits until its end is recorded.
func stopRunning(v *view) error {
	if v.rec.Kind == KindProcess {
		if _, err := control(v.dir, controlRequest{Op: "stop"}, stopGrace+5*time.Second); err != nil && v.confirmed != nil {
			// The socket is gone but the supervisor may live: its TERM
			// handler stops the child the same way.
			_ = syscall.Kill(v.confirmed.SupervisorPID, syscall.SIGTERM)
		}
	} else {
		requestStop(v)
	}
	deadline := time.Now().Add(stopGrace + 5*time.Second)
	for v.exit == nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("process %s did not end after it was stopped", v.rec.ProcessID)
		}
		time.Sleep(10 * time.Millisecond)
		if err := v.reload(); err != nil {
			return err
		}
		if v.exit == nil {
			if err := v.settle(now); err != nil {
				return err
			}
		}
	}
	return nil
}

// stopGroup terminates a process group, then kills it after the grace.
func stopGroup(pgid int) {
	if pgid <= 0 {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	time.AfterFunc(stopGrace, func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
}

func runningProcess(b *Binding, id string) (*view, *plugin.Result) {
	v, res := reachable(b, id)
	if res != nil {
		return nil, res
	}
	if !v.running() || v.confirmed == nil {
		return nil, plugin.Refused(errcode.ProcessNotRunning, fmt.Sprintf("process %s is %s", id, v.state()))
	}
	return v, nil
}

func controlled(v *view, req controlRequest) (*controlReply, *plugin.Result) {
	rep, err := control(v.dir, req, writeTimeout+5*time.Second)
	if err != nil {
		if lv, lerr := loadView(v.dir, now); lerr == nil && !lv.running() {
			return nil, plugin.Refused(errcode.ProcessNotRunning, fmt.Sprintf("process %s is %s", v.rec.ProcessID, lv.state()))
		}
		return nil, plugin.Failed(errcode.ProcessUnreachable, fmt.Sprintf("the supervisor of %s did not answer: %v", v.rec.ProcessID, err))
	}
	if !rep.OK {
		return nil, plugin.Failed(rep.Code, rep.Message)
	}
	return rep, nil
}

// ListRequest is process.list's input.
type ListRequest struct {
	Actor string `json:"actor,omitempty"`
}

// List is runx.process_list.v1.
type List struct {
	Schema    string     `json:"schema"`
	Processes []*Process `json:"processes"`
}

func listProcesses(_ context.Context, call *plugin.Call, b *Binding) *plugin.Result {
	var req ListRequest
	if res := decodeStrict(call.Input, &req, ListCapability); res != nil {
		return res
	}
	actor := b.Actor
	if b.AllActors {
		actor = req.Actor
	} else if req.Actor != "" && req.Actor != b.Actor {
		return plugin.Refused(errcode.ProcessActorForbidden, fmt.Sprintf("a run lists only its own actor's processes, not %s's", req.Actor))
	}
	views, err := listViews(b.ProjectDir, now)
	if err != nil {
		return plugin.Failed(errcode.ProcessStateUnreadable, err.Error())
	}
	out := &List{Schema: ProcessListSchema, Processes: []*Process{}}
	for _, v := range views {
		if actor == "" || v.rec.Actor == actor {
			out.Processes = append(out.Processes, v.document())
		}
	}
	return answer(out)
}
