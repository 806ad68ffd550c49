package fs

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/runxhq/runx/sdk/plugin"
)

// PreviewRequest is fs.preview's input: the op and the exact input a later
// fs.write, fs.edit or fs.apply_bundle would take.
type PreviewRequest struct {
	Op    string          `json:"op"`
	Input json.RawMessage `json:"input"`
}

// PreviewResponse is fs.preview's output: per file, what it holds, what it
// would hold and the complete unified diff between them. It is what the
// kernel puts on an approval gate, so nothing in it is truncated.
type PreviewResponse struct {
	Op    string        `json:"op"`
	Files []PreviewFile `json:"files"`
}

// PreviewFile is one file of a preview.
type PreviewFile struct {
	Path         string `json:"path"`
	Op           string `json:"op"`
	BeforeDigest string `json:"before_digest,omitempty"`
	AfterDigest  string `json:"after_digest,omitempty"`
	Diff         string `json:"diff"`
}

// preview is the deprecated fs.preview capability: it plans a change
// exactly as the change itself would, refusals included, and changes
// nothing. It is kept until the kernel calls the Preview RPC instead (see
// changeset.go), which answers the same plan as a runx.change_set.v1.
func preview(scope *Scope, req *PreviewRequest) (*PreviewResponse, *plugin.Result) {
	capability, known := previewOps[req.Op]
	if !known {
		return nil, plugin.Refused(CodeRequestInvalid, fmt.Sprintf("fs.preview op %q is none of write, edit, apply_bundle", req.Op))
	}
	if len(req.Input) == 0 {
		return nil, plugin.Refused(CodeRequestInvalid, "fs.preview needs the input of the change it previews")
	}
	cs, res := planCall(scope, &plugin.Call{Capability: capability, Input: req.Input})
	if res != nil {
		return nil, res
	}
	resp := &PreviewResponse{Op: req.Op, Files: make([]PreviewFile, 0, len(cs.files))}
	for _, fc := range cs.files {
		resp.Files = append(resp.Files, PreviewFile{
			Path: fc.target.Display, Op: fc.op,
			BeforeDigest: fc.beforeDigest, AfterDigest: fc.afterDigest,
			Diff: unifiedDiff(fc),
		})
	}
	return resp, nil
}

var previewOps = map[string]string{"write": CapabilityWrite, "edit": CapabilityEdit, "apply_bundle": CapabilityApplyBundle}

// unifiedDiff is the whole diff of one file change, with a/ and b/ names as
// git writes them and /dev/null for the side that does not exist. Content
// that is not UTF-8 text cannot be shown line by line in a JSON string
// without altering it, so it is named as binary, as git does; its digests
// still say exactly what changes.
func unifiedDiff(fc *fileChange) string {
	oldName, newName := "a/"+fc.target.Display, "b/"+fc.target.Display
	switch fc.op {
	case OpCreate:
		oldName = "/dev/null"
	case OpDelete:
		newName = "/dev/null"
	}
	if !isText(fc.before) || !isText(fc.after) {
		return fmt.Sprintf("Binary files %s and %s differ\n", oldName, newName)
	}
	d := diff.Diff(oldName, fc.before, newName, fc.after)
	if d == nil {
		// Same bytes (an empty file created or removed, or a write that
		// changes nothing): the header alone says what happens.
		var b bytes.Buffer
		fmt.Fprintf(&b, "diff %s %s\n--- %s\n+++ %s\n", oldName, newName, oldName, newName)
		return b.String()
	}
	return string(d)
}
