package authority

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/runxhq/runx/sdk/errcode"
)

// Delegation is one entry of delegations: what the run may do on one
// connector instance. Only its shape is checked here; the root's admission
// resolves the connector to its instance and checks each term against the
// link before it, which needs the connector's declarations.
type Delegation struct {
	Connector string `json:"connector"`
	Terms     []Term `json:"terms"`
	// PrincipalRef names the actor a host delegates to; it comes with the
	// operator's MandateRef, which the call's receipt cites. A plain
	// narrowing names nobody.
	PrincipalRef string `json:"principal_ref,omitempty"`
	MandateRef   string `json:"mandate_ref,omitempty"`
}

// Term is one grant within a delegation: its verbs and its bounds.
type Term struct {
	Verbs []string `json:"verbs"`
	// Bounds is the connector's own bounds object in canonical JSON. Its
	// fields belong to the connector, so it is kept whole and checked by the
	// admission that knows the connector.
	Bounds json.RawMessage `json:"bounds,omitempty"`
	// Packages bounds the packages a call under this term may come from, as
	// the authority's packages field does; not stated covers the chain the
	// link before it covers.
	Packages Packages `json:"packages,omitzero"`
}

// Covers reports whether the term grants verb to a call whose chain is
// chain: it lists the verb and its packages cover every package of the
// chain. Its bounds are the connector's, checked by the caller.
func (t Term) Covers(verb string, chain []string) bool {
	return slices.Contains(t.Verbs, verb) && t.Packages.CheckChain(chain) == nil
}

// Verbs a term may grant.
const (
	VerbRead  = "read"
	VerbWrite = "write"
)

var knownVerbs = []string{VerbRead, VerbWrite}

func parseDelegations(field string, raw json.RawMessage) ([]Delegation, error) {
	items, err := array(field, raw)
	if err != nil {
		return nil, err
	}
	out := make([]Delegation, len(items))
	seen := map[string]bool{}
	for i, item := range items {
		f := indexField(field, i)
		if out[i], err = parseDelegation(f, item); err != nil {
			return nil, err
		}
		// One delegation per connector: two would leave which one governs
		// a call to the order they were written in.
		if seen[out[i].Connector] {
			return nil, docError(errcode.AuthorityDuplicateEntry, joinField(f, "connector"),
				fmt.Sprintf("connector %q already has a delegation", out[i].Connector))
		}
		seen[out[i].Connector] = true
	}
	return out, nil
}

func parseDelegation(field string, raw json.RawMessage) (Delegation, error) {
	var d Delegation
	m, err := object(field, raw)
	if err != nil {
		return d, err
	}
	if err := onlyFields(field, m, "connector", "terms", "principal_ref", "mandate_ref"); err != nil {
		return d, err
	}
	for _, name := range []string{"connector", "terms"} {
		if _, ok := m[name]; !ok {
			return d, docError(errcode.AuthorityMissingField, joinField(field, name), "is required")
		}
	}
	if d.Connector, err = str(joinField(field, "connector"), m["connector"]); err != nil {
		return d, err
	}
	if !validOperationID(d.Connector) {
		return d, docError(errcode.AuthorityInvalidValue, joinField(field, "connector"), fmt.Sprintf("%q is not a connector name", d.Connector))
	}
	for _, name := range []string{"principal_ref", "mandate_ref"} {
		v, ok := m[name]
		if !ok {
			continue
		}
		s, err := str(joinField(field, name), v)
		if err != nil {
			return d, err
		}
		if s == "" {
			return d, docError(errcode.AuthorityInvalidValue, joinField(field, name), "must not be empty; leave it out instead")
		}
		if name == "principal_ref" {
			d.PrincipalRef = s
		} else {
			d.MandateRef = s
		}
	}
	// Delegating to a different actor is only ever done under the operator's
	// mandate, which the receipt cites; a principal without one would leave
	// the receipt nothing to cite.
	if d.PrincipalRef != "" && d.MandateRef == "" {
		return d, docError(errcode.AuthorityMissingField, joinField(field, "mandate_ref"), "is required when principal_ref names an actor")
	}
	tf := joinField(field, "terms")
	items, err := array(tf, m["terms"])
	if err != nil {
		return d, err
	}
	if len(items) == 0 {
		return d, docError(errcode.AuthorityInvalidValue, tf, "is empty; a delegation holds at least one term")
	}
	d.Terms = make([]Term, len(items))
	for i, item := range items {
		if d.Terms[i], err = parseTerm(indexField(tf, i), item); err != nil {
			return d, err
		}
	}
	return d, nil
}

func parseTerm(field string, raw json.RawMessage) (Term, error) {
	var t Term
	m, err := object(field, raw)
	if err != nil {
		return t, err
	}
	if err := onlyFields(field, m, "verbs", "bounds", "packages"); err != nil {
		return t, err
	}
	v, ok := m["verbs"]
	if !ok {
		return t, docError(errcode.AuthorityMissingField, joinField(field, "verbs"), "is required")
	}
	vf := joinField(field, "verbs")
	if t.Verbs, err = strs(vf, v); err != nil {
		return t, err
	}
	if len(t.Verbs) == 0 {
		return t, docError(errcode.AuthorityInvalidValue, vf, "is empty; a term grants at least one verb")
	}
	for i, verb := range t.Verbs {
		if !slices.Contains(knownVerbs, verb) {
			return t, docError(errcode.AuthorityInvalidValue, indexField(vf, i), fmt.Sprintf("%q is not a verb; the verbs are %v", verb, knownVerbs))
		}
		if slices.Contains(t.Verbs[:i], verb) {
			return t, docError(errcode.AuthorityDuplicateEntry, indexField(vf, i), fmt.Sprintf("%q is listed twice", verb))
		}
	}
	if p, ok := m["packages"]; ok {
		if t.Packages, err = parsePackages(joinField(field, "packages"), p); err != nil {
			return t, err
		}
	}
	if b, ok := m["bounds"]; ok {
		bf := joinField(field, "bounds")
		if _, err := object(bf, b); err != nil {
			return t, err
		}
		// Canonical bytes, so the same bounds always digest the same way
		// however the host spaced or ordered them.
		c, err := canonJSON(b)
		if err != nil {
			return t, docError(errcode.AuthorityInvalidJSON, bf, "cannot be written in canonical JSON")
		}
		t.Bounds = c
	}
	return t, nil
}
