// Command runx-plugin-notes is a third-party runx plugin, built with
// nothing but the public SDK, whose one capability changes workspace files.
// It declares what the kernel needs to govern such a change: the inputs
// that name the paths it writes (path_inputs), that it answers Preview with
// the exact change set (previews), and that it settles what a crash left
// begun (recovers). From those declarations alone runx gives it what it
// gives its own file tools: a floor gate carrying every diff, the
// workspace lock held alone, and rollback of a half-made change.
//
// Build it, put it at .runx/plugins/runx-plugin-notes and pin it
// (runx plugin pin notes).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

const capability = "notes.put"

type notes struct{}

func (notes) Info() plugin.Info {
	return plugin.Info{Name: "notes", Version: "1.0.0", Capabilities: []plugin.Definition{{
		ID:      capability,
		Summary: "Write several note files whole, all or none: each change names a workspace-relative path and its new text.",
		InputSchema: json.RawMessage(`{"type":"object","required":["changes"],"additionalProperties":false,"properties":{"changes":{"type":"array","minItems":1,` +
			`"items":{"type":"object","required":["path","text"],"additionalProperties":false,"properties":{"path":{"type":"string","minLength":1},"text":{"type":"string"}}}}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["written","exclusive_hold"],"properties":{"written":{"type":"array","items":{"type":"string"}},"exclusive_hold":{"type":"boolean"}}}`),
		Effect:       plugin.EffectWrite,
		Approval:     plugin.ApprovalNone,
		PathInputs:   []plugin.PathInput{{Pointer: "/changes/*/path", Role: plugin.PathWrite}},
		Previews:     true,
		Recovers:     true,
	}}}
}

type change struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

type request struct {
	Changes []change `json:"changes"`
}

// binding is what the kernel tells a call beyond its input.
type binding struct {
	ProjectDir string `json:"project_dir"`
	LockToken  string `json:"lock_token"`
}

func decode(call *plugin.Call) (*request, *binding, *plugin.Result) {
	var req request
	if err := json.Unmarshal(call.Input, &req); err != nil {
		return nil, nil, plugin.Refused(errcode.NotesRequestInvalid, "notes.put takes {changes: [{path, text}]}")
	}
	var b binding
	_ = json.Unmarshal(call.Context.Binding, &b)
	return &req, &b, nil
}

func target(call *plugin.Call, p string) string {
	return filepath.Join(call.Context.WorkspaceRoot, filepath.FromSlash(p))
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Preview answers, changing nothing, exactly what Invoke would write.
func (notes) Preview(_ context.Context, call *plugin.Call) *plugin.Result {
	req, _, res := decode(call)
	if res != nil {
		return res
	}
	cs := plugin.ChangeSet{Schema: plugin.ChangeSetSchema}
	for _, c := range req.Changes {
		before, err := os.ReadFile(target(call, c.Path))
		op, beforeDigest := plugin.ChangeModify, digest(before)
		if errors.Is(err, fs.ErrNotExist) {
			op, beforeDigest = plugin.ChangeCreate, ""
		}
		cs.Changes = append(cs.Changes, plugin.Change{Path: c.Path, Op: op, BeforeDigest: beforeDigest, AfterDigest: digest([]byte(c.Text)), Diff: diff(c.Path, string(before), c.Text)})
	}
	out, _ := json.Marshal(cs)
	return plugin.OK(out, nil)
}

// diff is a whole-file unified diff: every old line out, every new line in.
func diff(path, before, after string) string {
	var b strings.Builder
	b.WriteString("--- a/" + path + "\n+++ b/" + path + "\n")
	for _, l := range lines(before) {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range lines(after) {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// journal is what a call's change restores if it is left begun: each
// path's prior text, or nil for a file it created.
type journal struct {
	Prior map[string]*string `json:"prior"`
}

func journalPath(b *binding, runID string) string {
	return filepath.Join(b.ProjectDir, "notes-journal", strings.ReplaceAll(runID, "/", "_")+".json")
}

// Invoke journals every prior text durably, then writes each file; the
// journal goes once all are written. RUNX_TEST_CRASH_AT=notes_between_writes
// (a test hook) kills the process after the first write.
func (notes) Invoke(_ context.Context, call *plugin.Call) *plugin.Result {
	req, b, res := decode(call)
	if res != nil {
		return res
	}
	if b.ProjectDir == "" {
		return plugin.Refused(errcode.NotesJournalUnavailable, "notes.put needs the project directory in its binding to journal the change")
	}
	j := journal{Prior: map[string]*string{}}
	for _, c := range req.Changes {
		if before, err := os.ReadFile(target(call, c.Path)); err == nil {
			s := string(before)
			j.Prior[c.Path] = &s
		} else {
			j.Prior[c.Path] = nil
		}
	}
	jp := journalPath(b, call.Context.RunID)
	if err := writeSynced(jp, mustJSON(j)); err != nil {
		return plugin.Failed(errcode.NotesJournalFailed, err.Error())
	}
	var written []string
	for i, c := range req.Changes {
		if i == 1 && os.Getenv("RUNX_TEST_CRASH_AT") == "notes_between_writes" {
			os.Exit(3)
		}
		if err := writeSynced(target(call, c.Path), []byte(c.Text)); err != nil {
			return plugin.Failed(errcode.NotesWriteFailed, err.Error())
		}
		written = append(written, c.Path)
	}
	_ = os.Remove(jp)
	out, _ := json.Marshal(map[string]any{"written": written, "exclusive_hold": b.LockToken != ""})
	return plugin.OK(out, nil)
}

// Recover restores every prior text a begun change journaled and removes
// what it created, so a change lands whole or not at all.
func (notes) Recover(_ context.Context, call *plugin.Call) *plugin.Result {
	var b binding
	_ = json.Unmarshal(call.Context.Binding, &b)
	jp := journalPath(&b, call.Context.RunID)
	raw, err := os.ReadFile(jp)
	if errors.Is(err, fs.ErrNotExist) {
		return plugin.OK([]byte(`{"rolled_back":[]}`), nil)
	}
	var j journal
	if err != nil || json.Unmarshal(raw, &j) != nil {
		return plugin.Failed(errcode.NotesRecoverFailed, "the journal of a begun change cannot be read")
	}
	var rolled []string
	for p, prior := range j.Prior {
		var err error
		if prior == nil {
			err = os.Remove(target(call, p))
			if errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		} else {
			err = writeSynced(target(call, p), []byte(*prior))
		}
		if err != nil {
			return plugin.Failed(errcode.NotesRecoverFailed, err.Error())
		}
		rolled = append(rolled, p)
	}
	if err := os.Remove(jp); err != nil {
		return plugin.Failed(errcode.NotesRecoverFailed, err.Error())
	}
	out, _ := json.Marshal(map[string]any{"rolled_back": rolled})
	return plugin.OK(out, nil)
}

func mustJSON(v any) []byte {
	raw, _ := json.Marshal(v)
	return raw
}

// writeSynced writes a file whole through a synced temporary and a rename.
func writeSynced(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".notes-tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
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
	return os.Rename(tmp, path)
}

func main() { plugin.Serve(notes{}) }
