package artifact

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

// env is one workspace with its project state, calling the plugin in
// process as the kernel would.
type env struct {
	t       testing.TB
	root    string
	project string
	run     string
	reach   string
	roots   []string
	calls   int
}

func newEnv(t testing.TB) *env {
	root := t.TempDir()
	return &env{t: t, root: root, project: filepath.Join(root, ".runx"), run: "run-1", reach: pathpolicy.ReachWorkspace}
}

func (e *env) write(rel string, content []byte) string {
	p := filepath.Join(e.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) context() plugin.Context {
	e.calls++
	b, _ := json.Marshal(map[string]string{"project_dir": e.project, "actor": "local"})
	return plugin.Context{RunID: e.run, StepAddress: "s", CallID: e.run + "#s@" + itoa(e.calls),
		Attempt: 1, WorkspaceRoot: e.root, Reach: e.reach, ReachRoots: e.roots, Binding: b}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func (e *env) invokeCtx(c plugin.Context, capability string, in any) *plugin.Result {
	raw, err := json.Marshal(in)
	if err != nil {
		e.t.Fatal(err)
	}
	return New().Invoke(context.Background(), &plugin.Call{Capability: capability, Context: c, Input: raw})
}

func (e *env) invoke(capability string, in any) *plugin.Result {
	return e.invokeCtx(e.context(), capability, in)
}

func ok[T any](t testing.TB, res *plugin.Result) T {
	t.Helper()
	if res.Status != plugin.StatusOK {
		t.Fatalf("%s: %s %s", res.Status, res.Code, res.Message)
	}
	var v T
	if err := json.Unmarshal(res.Output, &v); err != nil {
		t.Fatalf("output %s: %v", res.Output, err)
	}
	return v
}

func refused(t testing.TB, res *plugin.Result, code errcode.Code) {
	t.Helper()
	if res.Status == plugin.StatusOK || res.Code != code {
		t.Fatalf("got %s %s %s; want refused %s", res.Status, res.Code, res.Message, code)
	}
}

// pageDoc is runx.artifact_page.v1 as a reader decodes it.
type pageDoc struct {
	Schema      string            `json:"schema"`
	Ref         string            `json:"ref"`
	Digest      string            `json:"digest"`
	Bytes       int64             `json:"bytes"`
	Encoding    string            `json:"encoding"`
	Offset      int64             `json:"offset"`
	NextOffset  int64             `json:"next_offset"`
	RangeDigest string            `json:"range_digest"`
	EOF         bool              `json:"eof"`
	Data        *string           `json:"data"`
	DataBase64  *string           `json:"data_base64"`
	Items       []json.RawMessage `json:"items"`
}

func (p *pageDoc) content(t testing.TB) []byte {
	switch {
	case p.Data != nil:
		return []byte(*p.Data)
	case p.DataBase64 != nil:
		b, err := base64.StdEncoding.DecodeString(*p.DataBase64)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return nil
}

// readAll pages ref from 0 to its end, checking that pages tile it.
func (e *env) readAll(ref, encoding string, maxBytes int) []pageDoc {
	var pages []pageDoc
	var offset int64
	for {
		p := ok[pageDoc](e.t, e.invoke(ReadCapability, map[string]any{"ref": ref, "offset": offset, "max_bytes": maxBytes, "encoding": encoding}))
		if p.Offset != offset || p.NextOffset < offset {
			e.t.Fatalf("page at %d answers offset %d next %d", offset, p.Offset, p.NextOffset)
		}
		pages = append(pages, p)
		if p.EOF {
			if p.NextOffset != p.Bytes {
				e.t.Fatalf("eof at %d of %d", p.NextOffset, p.Bytes)
			}
			return pages
		}
		if p.NextOffset == offset {
			e.t.Fatalf("page at %d made no progress", offset)
		}
		offset = p.NextOffset
	}
}
