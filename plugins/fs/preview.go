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

// preview plans a change exactly as the change itself would, refusals
// included, and changes nothing.
func preview(scope *Scope, req *PreviewRequest) (*PreviewResponse, *plugin.Result) {
	var cs *changeSet
	var res *plugin.Result
	switch req.Op {
	case "write":
		var in WriteRequest
		if res := decodeInner(req, &in); res != nil {
			return nil, res
		}
		cs, res = planWrite(scope, &in)
	case "edit":
		var in EditRequest
		if res := decodeInner(req, &in); res != nil {
			return nil, res
		}
		cs, res = planEdit(scope, &in)
	case "apply_bundle":
		var in BundleRequest
		if res := decodeInner(req, &in); res != nil {
			return nil, res
		}
		cs, res = planBundle(scope, &in)
	default:
		return nil, plugin.Refused(CodeRequestInvalid, fmt.Sprintf("fs.preview op %q is none of write, edit, apply_bundle", req.Op))
	}
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

func decodeInner(req *PreviewRequest, into any) *plugin.Result {
	if len(req.Input) == 0 {
		return plugin.Refused(CodeRequestInvalid, "fs.preview needs the input of the change it previews")
	}
	return decode(&plugin.Call{Capability: "fs.preview " + req.Op, Input: req.Input}, into)
}

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
