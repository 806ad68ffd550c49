package script

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// InputInlineMax is the most of one input a script's module is given
// inline, as canonical JSON. An input past it is kept in the project's
// artifact store as an artifact of the run (runx.artifact.v1: its
// canonical JSON, by digest) and reaches the module as a reference to it,
// {"$ref": "art_<32 hex>"}; an array input past it as a list of
// references, one an item, so a batch of any size is a list the script
// walks with ctx.read, each read a request the run records and max_calls
// bounds. The same reference is good for artifact.read and, by its
// descriptor, artifact.open.
const InputInlineMax = 64 << 10

// readMax is the most one ctx.read gives whole: an input document's
// own ceiling, so any input a run took can be read back.
const readMax = 64 << 20

// Codes of a script's references.

// artifactRef is one input (or one item of an array input) the step gave its
// script by reference: the artifact that holds it, labelled with the input.
type artifactRef struct {
	label   string // input/<name>, input/<name>/<i> for an item, call/<index> for one a call returned
	content any
	rec     *artifactstore.Record
	// unreadable: a returned artifact whose content is not a value a script
	// reads (ctx.read says why); it stands for nothing in an input or output.
	unreadable bool
}

// Refs are the step's inputs its script was given by reference, by
// reference string. A reference names a value of this step only: it
// carries no authority and reaches nothing the step's inputs did not hold.
type Refs struct {
	store *artifactstore.Store
	runID string
	// projectDir opens the store when no input needed it.
	projectDir string

	mu    sync.Mutex // a script's calls resolve references at once
	byRef map[string]*artifactRef
	// record is the step's settled requests so far: a reference one of its
	// calls returned (a runx.artifact.v1 descriptor's ref) resolves too.
	record []Recorded
}

// InputRef is the reference of one input of a step: the same on every
// drive of the run, so a replay after a pause names the same artifacts.
func InputRef(runID, local, label string) string {
	return "art_" + artifactstore.HexDigest([]byte(runID + "\x00script_input\x00" + local + "\x00" + label))[:32]
}

// KeepInputs is the input a script's module is given, with every input
// past InputInlineMax kept as an artifact of run runID in the project's
// artifact store and replaced by references, and those references.
func KeepInputs(projectDir, runID, local string, inputs map[string]any) (map[string]any, *Refs, error) {
	refs := &Refs{runID: runID, projectDir: projectDir, byRef: map[string]*artifactRef{}}
	var kept []*artifactRef
	var batch *artifactstore.Batch
	keep := func(label string, v any, raw []byte) (map[string]any, error) {
		if refs.store == nil {
			st, err := artifactstore.Open(projectDir)
			if err != nil {
				return nil, contract.Errorf(errcode.ScriptArtifactUnavailable, "the step's inputs past 64 KiB cannot be kept in the project's artifact store: %v", err)
			}
			refs.store, batch = st, st.NewBatch()
		}
		digest, err := batch.Keep(raw)
		if err != nil {
			return nil, contract.Errorf(errcode.ScriptArtifactUnavailable, "input %s cannot be kept in the project's artifact store: %v", label, err)
		}
		ref := InputRef(runID, local, label)
		r := &artifactRef{label: label, content: v, rec: &artifactstore.Record{Ref: ref, RunID: runID, Digest: digest,
			Bytes: int64(len(raw)), MediaType: "application/json", Sharing: artifactstore.SharingDefault, Origin: artifactstore.OriginStored}}
		refs.byRef[ref] = r
		kept = append(kept, r)
		return map[string]any{"$ref": ref}, nil
	}
	out := make(map[string]any, len(inputs))
	for name, v := range inputs {
		raw, err := canon.Canonical(v)
		if err != nil {
			return nil, nil, err
		}
		if len(raw) <= InputInlineMax {
			out[name] = v
			continue
		}
		if list, ok := v.([]any); ok {
			items := make([]any, len(list))
			for i, item := range list {
				itemRaw, err := canon.Canonical(item)
				if err != nil {
					return nil, nil, err
				}
				if items[i], err = keep("input/"+name+"/"+strconv.Itoa(i), item, itemRaw); err != nil {
					return nil, nil, err
				}
			}
			out[name] = items
			continue
		}
		if out[name], err = keep("input/"+name, v, raw); err != nil {
			return nil, nil, err
		}
	}
	if len(kept) == 0 {
		return out, refs, nil
	}
	// The run's references, written once: a later drive finds them there.
	// One flush makes the step's contents and records durable together
	// before the module is given any of them.
	err := refs.store.WithRunLock(runID, func(dir string) error {
		for _, r := range kept {
			if have, err := refs.store.Lookup(runID, r.rec.Ref); err == nil && *have == *r.rec {
				continue
			}
			if err := batch.WriteRecord(dir, r.rec); err != nil {
				return err
			}
		}
		return batch.Commit()
	})
	if err != nil {
		return nil, nil, contract.Errorf(errcode.ScriptArtifactUnavailable, "the step's input artifacts cannot be recorded for the run: %v", err)
	}
	return out, refs, nil
}

// Artifacts names each artifact the step gave its script, labelled with
// its input, in label order: what the step's receipt commits to.
func (r *Refs) Artifacts() []receipt.Artifact {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []receipt.Artifact
	for _, s := range r.byRef {
		if strings.HasPrefix(s.label, "input/") {
			out = append(out, artifactOf(s.label, s.rec))
		}
	}
	sortArtifacts(out)
	return out
}

// WithRecord gives the references the step's settled calls returned.
func (r *Refs) WithRecord(record []Recorded) {
	r.mu.Lock()
	r.record = record
	r.mu.Unlock()
}

// RefOf reports whether v is a reference: an object whose one member is a
// string $ref.
func RefOf(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	ref, ok := m["$ref"].(string)
	return ref, ok
}

// SubstituteNamed gives v with every reference the step gave its script
// replaced by the content it names (a reference in a call's input gives
// the callee its content, with no read), and the artifacts it gave content
// for, each labelled with where the value held it (input/<pointer>): what
// the call's receipt names. Other values, and an object that merely looks
// like a reference to something else, are left as they are.
func (r *Refs) SubstituteNamed(v any) (any, []receipt.Artifact) {
	if r == nil || len(r.byRef) == 0 {
		return v, nil
	}
	var used []receipt.Artifact
	out, _ := r.resolve(v, "", false, func(pointer string, s *artifactRef) {
		used = append(used, artifactOf("input"+pointer, s.rec))
	})
	sortArtifacts(used)
	return out, used
}

// ResolveOutput gives a script's output with every reference at any depth
// replaced by its content; a reference to nothing the step gave fails the
// step, naming where the output holds it.
func (r *Refs) ResolveOutput(v any) (any, *contract.ErrorBody) {
	out, at := r.resolve(v, "", true, nil)
	if at != "" {
		return nil, &contract.ErrorBody{Code: errcode.ScriptReferenceUnknown, Message: fmt.Sprintf("the script's output holds a reference at %s that names no input of the step nor an artifact one of its calls returned; a script returns only references it was given", at)}
	}
	return out, nil
}

// resolve walks v; strict stops at the first unknown reference and answers
// its JSON pointer; used, when given, is told each reference replaced.
func (r *Refs) resolve(v any, pointer string, strict bool, used func(string, *artifactRef)) (any, string) {
	if ref, ok := RefOf(v); ok {
		if s, known := r.lookup(ref); known && !s.unreadable {
			if used != nil {
				used(pointer, s)
			}
			return s.content, ""
		}
		if strict {
			return nil, orRoot(pointer)
		}
		return v, ""
	}
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the first unknown reference named is the same every time
		out := make(map[string]any, len(t))
		for _, k := range keys {
			item, at := r.resolve(t[k], pointer+"/"+escapePointer(k), strict, used)
			if at != "" {
				return nil, at
			}
			out[k] = item
		}
		return out, ""
	case []any:
		out := make([]any, len(t))
		for i, item := range t {
			resolved, at := r.resolve(item, pointer+"/"+strconv.Itoa(i), strict, used)
			if at != "" {
				return nil, at
			}
			out[i] = resolved
		}
		return out, ""
	}
	return v, ""
}

// lookup is the reference the step gave, or that one of its calls
// returned: found in the run's artifact store under the run, its content
// read back held to its digest. A returned reference whose content cannot
// be read as a value is marked unreadable: ctx.read says why, and the
// script pages it with artifact.read instead.
func (r *Refs) lookup(ref string) (*artifactRef, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.byRef[ref]; ok {
		return s, true
	}
	index, ok := returnedBy(r.record, ref)
	if !ok {
		return nil, false
	}
	if r.store == nil {
		st, err := artifactstore.Open(r.projectDir)
		if err != nil {
			return nil, false
		}
		r.store = st
	}
	rec, err := r.store.Lookup(r.runID, ref)
	if err != nil {
		return nil, false
	}
	s := &artifactRef{label: "call/" + strconv.Itoa(index), rec: rec}
	if raw, failure := s.read(r.store); failure != nil {
		s.unreadable = true
	} else if json.Unmarshal(raw, &s.content) != nil {
		s.unreadable = true
	}
	r.byRef[ref] = s
	return s, true
}

// returnedBy finds the settled call of the step whose output is a
// runx.artifact.v1 descriptor with ref, and answers its index.
func returnedBy(record []Recorded, ref string) (int, bool) {
	if !artifactstore.ValidRef(ref) {
		return 0, false
	}
	needle := []byte(`"` + ref + `"`)
	for _, e := range record {
		if e.Kind != KindCall || !bytes.Contains(e.Output, needle) {
			continue
		}
		var d struct {
			Schema string `json:"schema"`
			Ref    string `json:"ref"`
		}
		if json.Unmarshal(e.Output, &d) == nil && d.Schema == artifactstore.Schema && d.Ref == ref {
			return e.Index, true
		}
	}
	return 0, false
}

// read gives an artifact's content as the JSON of the value a script reads:
// JSON content as itself, UTF-8 text as a string. Anything else, or a
// content no longer what was kept, is a failure with its code.
func (s *artifactRef) read(st *artifactstore.Store) (json.RawMessage, *contract.ErrorBody) {
	if s.rec.Bytes > readMax {
		return nil, &contract.ErrorBody{Code: errcode.ScriptArtifactTooLarge, Message: fmt.Sprintf("ctx.read: %s holds %d bytes, past the %d MiB one read gives; page it with artifact.read", s.rec.Ref, s.rec.Bytes, readMax>>20)}
	}
	content, err := st.ReadAll(s.rec, readMax)
	if err != nil {
		return nil, &contract.ErrorBody{Code: errcode.ScriptArtifactDamaged, Message: fmt.Sprintf("ctx.read: the artifact holding %s (%s) is not the content that was kept; its digest or size differ or it is gone", s.label, s.rec.Ref)}
	}
	mt := s.rec.MediaType
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		if json.Valid(content) {
			return content, nil
		}
	case strings.HasPrefix(mt, "text/") && utf8.Valid(content):
		raw, err := json.Marshal(string(content))
		if err == nil {
			return raw, nil
		}
	}
	return nil, &contract.ErrorBody{Code: errcode.ScriptArtifactNotValue, Message: fmt.Sprintf("ctx.read: %s is %s, neither JSON nor UTF-8 text; page it with artifact.read", s.rec.Ref, mt)}
}

func orRoot(pointer string) string {
	if pointer == "" {
		return "/"
	}
	return pointer
}

func escapePointer(token string) string {
	out := make([]byte, 0, len(token))
	for i := 0; i < len(token); i++ {
		switch token[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, token[i])
		}
	}
	return string(out)
}

// Read is what a ctx.read of ref gives: the content of the artifact the
// step gave (or one of its calls returned) by that reference, read back
// from the artifact store and held to its digest and size, and the
// artifact, labelled as the step knows it. A reference the step never
// gave, or an artifact whose content changed, is a failure with its code.
func (r *Refs) Read(ref string) (json.RawMessage, receipt.Artifact, *contract.ErrorBody) {
	s, ok := r.lookup(ref)
	if !ok {
		return nil, receipt.Artifact{}, &contract.ErrorBody{Code: errcode.ScriptReferenceUnknown, Message: fmt.Sprintf("ctx.read: %q names no input this step gave its script, nor an artifact one of its calls returned", ref)}
	}
	content, failure := s.read(r.store)
	if failure != nil {
		return nil, receipt.Artifact{}, failure
	}
	return content, artifactOf(s.label, s.rec), nil
}

func artifactOf(label string, r *artifactstore.Record) receipt.Artifact {
	return receipt.Artifact{Label: label, Ref: r.Ref, Digest: r.Digest, Bytes: r.Bytes, MediaType: r.MediaType}
}

func sortArtifacts(a []receipt.Artifact) {
	slices.SortFunc(a, func(x, y receipt.Artifact) int { return strings.Compare(x.Label, y.Label) })
}

// ReadRef settles a ctx.read of a reference: the content of the artifact the
// step gave by that reference, read back from the artifact store and held
// to its digest and size, recorded beside what was asked so a replay is
// held to asking the same. A reference the step never gave, or an
// artifact whose content changed, rejects the read. A read runs nothing
// and commits no receipt of its own: the step's receipt names the
// artifacts it gave.
func (l Log) ReadRef(ctx context.Context, stepID, address string, p Pending, refs *Refs) error {
	digest := canon.DigestRaw(p.Input)
	var doc struct {
		Ref string `json:"$ref"`
	}
	_ = json.Unmarshal(p.Input, &doc)
	rec := &journal.Step{RunID: l.RunID, Address: address, StepID: stepID}
	fail := func(code errcode.Code, message string) error {
		rec.Status = contract.StepFailed
		var err error
		rec.Error, err = json.Marshal(&contract.ErrorBody{Code: code, Message: message,
			Detail: map[string]any{"kind": KindRead, "input_digest": digest}})
		return err
	}
	var err error
	if content, artifact, failure := refs.Read(doc.Ref); failure != nil {
		err = fail(failure.Code, failure.Message)
	} else {
		rec.Status = contract.StepSuccess
		rec.Output, err = json.Marshal(map[string]any{"kind": KindRead, "input_digest": digest, "output": content,
			"artifact": artifact})
	}
	if err != nil {
		return err
	}
	return l.Journal.RecordStep(context.WithoutCancel(ctx), rec)
}
