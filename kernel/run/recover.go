package run

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/wslock"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Recovery. A capability that declares `recovers` journals its changes so
// that what a crash left begun can be settled whole. Before the kernel
// first calls one in a run it records the capability id durably under
// .runx/journal/recover/<run id>; the next driver of that run asks each
// recorded capability's plugin to Recover before it does anything else.
// A run that never called a recovering capability starts no plugin for it.

// recoverFile is the one file per run listing the recovering capabilities it
// called.
func (e *engine) recoverFile(runID string) string {
	return filepath.Join(e.ProjectDir, "journal", "recover", safeFileName(runID))
}

func safeFileName(s string) string {
	s = strings.NewReplacer("/", "_", "\\", "_", "\x00", "_").Replace(s)
	if s == "." || s == ".." || s == "" {
		return "_"
	}
	return s
}

// noteRecovering records, durably and once per run and capability, that a
// run is about to call a capability that recovers.
func (e *engine) noteRecovering(runID, capability string) error {
	key := runID + "\x00" + capability
	if _, done := e.recovering.Load(key); done {
		return nil
	}
	path := e.recoverFile(runID)
	for _, id := range readRecovering(path) {
		if id == capability {
			e.recovering.Store(key, true)
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(capability + "\n"); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	e.recovering.Store(key, true)
	return nil
}

func readRecovering(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id := strings.TrimSpace(sc.Text()); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// recoverBegun settles, whole, whatever a crash left begun in this run by
// each recovering capability it called, before its next driver does
// anything else, under the exclusive workspace lock.
func (e *engine) recoverBegun(ctx context.Context, runID, joinToken string) error {
	ids := readRecovering(e.recoverFile(runID))
	if len(ids) == 0 {
		return nil
	}
	if joinToken == "" {
		joinToken = e.LockToken
	}
	hold, err := wslock.AcquireJoining(ctx, e.ProjectDir, wslock.Exclusive, joinToken)
	if err != nil {
		return err
	}
	defer hold.Release()
	binding, _ := json.Marshal(map[string]any{"project_dir": e.ProjectDir})
	for _, id := range ids {
		res, _, err := e.Host.Recover(context.WithoutCancel(ctx), &sdk.Call{Capability: id, Context: sdk.Context{
			RunID: runID, CallID: runID + "#recover", WorkspaceRoot: e.Workspace, Reach: "inputs", Binding: binding, Clock: e.Clock(),
		}})
		if errors.Is(err, sdk.ErrNotImplemented) {
			return &recoverError{code: errcode.RecoverUnsupported, msg: "capability " + id + " declares that it recovers, but its plugin does not answer Recover"}
		}
		if err != nil && ctx.Err() != nil {
			return err
		}
		if err != nil {
			code := errcode.RecoverFailed
			var coded interface{ ErrorCode() errcode.Code }
			if errors.As(err, &coded) {
				code = coded.ErrorCode()
			}
			return &recoverError{code: code, msg: "capability " + id + ": " + err.Error()}
		}
		if res.Status != sdk.StatusOK {
			return &recoverError{code: res.Code, msg: res.Message}
		}
	}
	return nil
}

type recoverError struct {
	code errcode.Code
	msg  string
}

func (r *recoverError) Error() string           { return "recovering a change a crash left begun: " + r.msg }
func (r *recoverError) ErrorCode() errcode.Code { return r.code }
