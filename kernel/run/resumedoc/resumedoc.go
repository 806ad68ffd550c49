package resumedoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// Ceilings on what a host's resume document (runx resume, an MCP turn's
// answer, a managed agent's) may carry. Each refusal names its field and
// ceiling; none quotes the document.
const (
	// MaxResumeDocumentBytes bounds a whole resume document.
	MaxResumeDocumentBytes = 16 << 20
	// MaxResumeEntries bounds the entries of answers and approvals together.
	MaxResumeEntries = 1024
	// MaxResumeAddressBytes bounds a request's address.
	MaxResumeAddressBytes = 1024
	// MaxResumeDigestBytes bounds request_digest (a sha256: digest is 71).
	MaxResumeDigestBytes = 128
	// MaxResumeValueBytes bounds one entry's value: an agent's output, a
	// person's answers to questions, a retry decision. It is the ceiling a
	// module's output is held to, so an answer costs no more than a step.
	MaxResumeValueBytes = 4 << 20
	// MaxApprovalReasonBytes bounds an approval's reason: a person's
	// sentence, recorded in the run and its receipt.
	MaxApprovalReasonBytes = 4 << 10
)

// Codes of a resume document refused before any entry is checked against
// the run.

var (
	resumeFields = []string{"answers", "approvals", "standing_approvals", "close"}
	entryFields  = []string{"request_digest", "value", "approved", "reason"}
	closeFields  = []string{"outcome"}
)

// Parse reads a runx.resume.v1 document strictly, refusing it whole on
// anything that could be read two ways: a key repeated at any depth, a key
// spelled in another case (encoding/json would match "Approvals" to
// approvals), an unknown key, a value of the wrong JSON type, trailing
// data, a field over its ceiling, an approval without its approved or with
// an empty reason. Nothing of it is echoed.
func Parse(raw []byte) (*contract.ResumeDocument, error) {
	if len(raw) > MaxResumeDocumentBytes {
		return nil, contract.Errorf(errcode.ResumeDocumentTooLarge, "the resume document is %d bytes, over the %d byte ceiling on a resume document", len(raw), MaxResumeDocumentBytes)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	invalid := func(format string, args ...any) error {
		return contract.Errorf(errcode.ResumeDocumentInvalid, "the resume document is not a runx.resume.v1 object: "+format, args...)
	}
	if !utf8.Valid(raw) {
		return nil, invalid("it is not valid UTF-8")
	}
	dup, err := contract.DuplicateKey(raw)
	if err != nil {
		return nil, invalid("it is not exactly one well-formed JSON value")
	}
	if dup != "" {
		return nil, invalid("key %s appears more than once in one object", shownKey(dup))
	}
	top, err := StrictObject(raw, "the document", resumeFields)
	if err != nil {
		return nil, invalid("%v", err)
	}
	doc := &contract.ResumeDocument{StandingApprovals: top["standing_approvals"]}
	entries := 0
	for _, lane := range []struct {
		name string
		into *map[string]*contract.ResumeEntry
	}{{contract.LaneAnswers, &doc.Answers}, {contract.LaneApprovals, &doc.Approvals}} {
		v, ok := top[lane.name]
		if !ok {
			continue
		}
		byAddr, err := StrictObject(v, lane.name, nil)
		if err != nil {
			return nil, invalid("%v", err)
		}
		if entries += len(byAddr); entries > MaxResumeEntries {
			return nil, contract.Errorf(errcode.ResumeFieldTooLarge, "the resume document holds more than %d entries, the ceiling on entries in one resume", MaxResumeEntries)
		}
		*lane.into = make(map[string]*contract.ResumeEntry, len(byAddr))
		for addr, rawEntry := range byAddr {
			if len(addr) > MaxResumeAddressBytes {
				return nil, contract.Errorf(errcode.ResumeFieldTooLarge, "a %s address is %d bytes, over the %d byte ceiling on an address", lane.name, len(addr), MaxResumeAddressBytes)
			}
			entry, err := parseResumeEntry(lane.name, addr, rawEntry)
			if err != nil {
				return nil, err
			}
			(*lane.into)[addr] = entry
		}
	}
	if v, ok := top["close"]; ok {
		fields, err := StrictObject(v, "close", closeFields)
		if err != nil {
			return nil, invalid("%v", err)
		}
		doc.Close = &contract.ResumeClose{}
		if o, ok := fields["outcome"]; ok {
			if json.Unmarshal(o, &doc.Close.Outcome) != nil {
				return nil, invalid("close.outcome must be a string")
			}
		}
	}
	return doc, nil
}

// parseResumeEntry reads one entry of a lane. A null entry stays nil, for
// admission to refuse by its address.
func parseResumeEntry(lane, addr string, raw json.RawMessage) (*contract.ResumeEntry, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	at := lane + "." + addr
	fields, err := StrictObject(raw, at, entryFields)
	if err != nil {
		return nil, contract.Errorf(errcode.ResumeDocumentInvalid, "the resume document is not a runx.resume.v1 object: %v", err)
	}
	e := &contract.ResumeEntry{}
	if v, ok := fields["request_digest"]; ok {
		if json.Unmarshal(v, &e.RequestDigest) != nil {
			return nil, contract.Errorf(errcode.ResumeEntryInvalid, "%s entry %s: request_digest must be a string", lane, addr)
		}
		if len(e.RequestDigest) > MaxResumeDigestBytes {
			return nil, contract.Errorf(errcode.ResumeFieldTooLarge, "%s entry %s: request_digest is %d bytes, over the %d byte ceiling on a request digest", lane, addr, len(e.RequestDigest), MaxResumeDigestBytes)
		}
	}
	if v, ok := fields["value"]; ok {
		if len(v) > MaxResumeValueBytes {
			return nil, contract.Errorf(errcode.ResumeFieldTooLarge, "%s entry %s: value is %d bytes, over the %d byte ceiling on an answer's value", lane, addr, len(v), MaxResumeValueBytes)
		}
		e.Value = v
	}
	_, hasApproved := fields["approved"]
	_, hasReason := fields["reason"]
	if hasApproved || hasReason {
		if lane != contract.LaneApprovals {
			return nil, contract.Errorf(errcode.ResumeEntryInvalid, "%s entry %s: approved and reason belong to an approval, under approvals", lane, addr)
		}
		if !hasApproved || !hasReason || e.Value != nil {
			return nil, contract.Errorf(errcode.ResumeEntryInvalid, "%s entry %s: an approval takes approved (true or false) and reason, and no value", lane, addr)
		}
		var approved bool
		if json.Unmarshal(fields["approved"], &approved) != nil || string(fields["approved"]) == "null" {
			return nil, contract.Errorf(errcode.ResumeEntryInvalid, "%s entry %s: approved must be true or false", lane, addr)
		}
		var reason string
		if json.Unmarshal(fields["reason"], &reason) != nil || string(fields["reason"]) == "null" {
			return nil, contract.Errorf(errcode.ResumeEntryInvalid, "%s entry %s: reason must be a string", lane, addr)
		}
		if len(reason) > MaxApprovalReasonBytes {
			return nil, contract.Errorf(errcode.ResumeFieldTooLarge, "%s entry %s: reason is %d bytes, over the %d byte ceiling on an approval reason", lane, addr, len(reason), MaxApprovalReasonBytes)
		}
		if strings.TrimSpace(reason) == "" {
			return nil, contract.Errorf(errcode.ResumeReasonEmpty, "%s entry %s: the reason is empty; say why the step is approved or declined", lane, addr)
		}
		e.Approved, e.Reason = &approved, &reason
	}
	return e, nil
}

// StrictObject decodes raw as one JSON object whose keys are exactly among
// allowed (any key when allowed is nil). A key that matches an allowed one
// only in another case is named as such: encoding/json would have taken it.
func StrictObject(raw json.RawMessage, what string, allowed []string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, fmt.Errorf("%s must be a JSON object", what)
	}
	if allowed == nil {
		return m, nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		known := false
		for _, a := range allowed {
			if k == a {
				known = true
				break
			}
			if strings.EqualFold(k, a) {
				return nil, fmt.Errorf("%q in %s is not a field: field names are exact, write %q", shownKey(k), what, a)
			}
		}
		if !known {
			return nil, fmt.Errorf("unknown field %q in %s (fields are %s)", shownKey(k), what, strings.Join(allowed, ", "))
		}
	}
	return m, nil
}

// shownKey is a key as a message may show it: at most 64 bytes of it.
func shownKey(k string) string {
	if len(k) <= 64 {
		return k
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(k[cut]) {
		cut--
	}
	return k[:cut] + "…"
}
