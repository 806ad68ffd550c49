package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/gowebpki/jcs"

	"github.com/runxhq/runx/sdk/errcode"
)

// encodeRequest is the canonical (RFC 8785) JSON of a ctx.call input: a
// plain object serialised with JSON.stringify's rules (toJSON, dropped
// undefined members) under the output's bounds, written in the form the
// kernel canonicalises every digested document to, so the digest here and
// the kernel's agree byte for byte.
func encodeRequest(rt *goja.Runtime, in *intrinsics, v goja.Value, halted *atomic.Bool) ([]byte, *Error) {
	const subject = "the input"
	obj, ok := v.(*goja.Object)
	if !ok || !isPlainObject(obj, in) {
		return nil, refuse(errcode.ModuleOutputInvalid, "%s must be a plain object, not %s", subject, describe(v))
	}
	e := outputEncoder{rt: rt, subject: subject, canonical: true, buf: make([]byte, 0, 128), open: map[*goja.Object]bool{}, halted: halted}
	written, refusal := e.value("", v, nil, 0)
	if refusal != nil {
		return nil, refusal
	}
	if !written || len(e.buf) == 0 || e.buf[0] != '{' {
		return nil, refuse(errcode.ModuleOutputInvalid, "%s does not serialise to a JSON object (its toJSON returned something else)", subject)
	}
	return e.buf, nil
}

// referenceOf reports whether v is a reference, an object whose one own
// member is "$ref" holding a string, and returns that string.
func referenceOf(v goja.Value) (string, bool) {
	obj, ok := v.(*goja.Object)
	if !ok || obj.ClassName() != "Object" {
		return "", false
	}
	if _, callable := goja.AssertFunction(obj); callable {
		return "", false
	}
	keys := obj.Keys()
	if len(keys) != 1 || keys[0] != "$ref" {
		return "", false
	}
	return primitiveString(obj.Get("$ref"))
}

// canonicalReference is the canonical JSON of {"$ref": ref}.
func canonicalReference(ref string) ([]byte, error) {
	doc, err := json.Marshal(map[string]string{"$ref": ref})
	if err != nil {
		return nil, err
	}
	return jcs.Transform(doc)
}

// untilOf reads ctx.wait's { until }: a positive safe integer.
func untilOf(v goja.Value) (int64, bool) {
	obj, ok := v.(*goja.Object)
	if !ok {
		return 0, false
	}
	until := obj.Get("until")
	if until == nil || !goja.IsNumber(until) {
		return 0, false
	}
	f := until.ToFloat()
	if f < 1 || f > maxSafeInteger || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// primitiveString is v's text when v is a string primitive; a String
// wrapper object is refused, as it would be no JSON string either.
func primitiveString(v goja.Value) (string, bool) {
	if v == nil || !goja.IsString(v) {
		return "", false
	}
	return v.String(), true
}

// matches refuses a replay that asks, at a recorded index, anything but
// what the record holds there: answering it would hand one request another
// request's result.
func matches(rec *Recorded, index int, kind RequestKind, tool string, input []byte) *Error {
	asked := describeRequest(kind, tool)
	held := describeRequest(rec.Kind, rec.Tool)
	if rec.Kind != kind || (kind == KindCall && rec.Tool != tool) {
		return refuse(errcode.ScriptNondeterministic,
			"request %d is %s, but the record holds %s there; a replay must ask what the run it replays asked (is the module deterministic?)",
			index, asked, held)
	}
	if kind == KindWait {
		return nil
	}
	if d := digest(input); d != rec.InputDigest {
		return refuse(errcode.ScriptNondeterministic,
			"request %d is %s with input %s, but the record holds it with input %s; a replay must ask what the run it replays asked (is the module deterministic?)",
			index, asked, d, rec.InputDigest)
	}
	return nil
}

func describeRequest(kind RequestKind, tool string) string {
	switch kind {
	case KindCall:
		return "ctx.call(" + quoteTool(tool) + ")"
	case KindRead:
		return "ctx.read of a reference"
	case KindWait:
		return "ctx.wait"
	}
	return "a " + strconv.Quote(string(kind))
}

// digest is "sha256:<hex>" of canonical JSON, the form Recorded.InputDigest
// takes.
func digest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// quoteTool quotes a tool id for a message, bounded: it is module text.
func quoteTool(tool string) string {
	const max = 128
	if len(tool) > max {
		return strconv.Quote(tool[:max]) + "…"
	}
	return strconv.Quote(tool)
}

func itoa(i int) string { return strconv.Itoa(i) }
