package authority

import (
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// Schema names the authority document's format.
const Schema = "runx.authority.v1"

// Authority is the document a host states for a run (--run-authority, a
// saved preset, a test's setup.authority). Every field is optional and an
// unstated field narrows nothing. A nil *Authority means no host stated
// one; a non-nil empty one is a stated, empty authority ({}), which stays
// empty: nothing fills it in from elsewhere.
type Authority struct {
	Effects Effects `json:"effects,omitzero"`
	Reach   Reach   `json:"reach,omitzero"`
	Limits
	Packages          Packages           `json:"packages,omitzero"`
	StandingApprovals []StandingApproval `json:"standing_approvals,omitempty"`
	Delegations       []Delegation       `json:"delegations,omitempty"`
	// ActorRef names whose run this is when a host delegates to an actor
	// other than the person operating the project (actor.go).
	ActorRef string `json:"actor_ref,omitempty"`
}

// documentFields are the top-level fields, in the order the reference lists
// them. schema is optional and, when present, must name this format; it is
// not kept, because it says which format the document is in, not what the
// authority allows, so it takes no part in the digest.
var documentFields = []string{
	"schema", "effects", "reach", "max_concurrency", "max_fanout", "max_child_depth",
	"max_spend_micro_usd", "packages", "standing_approvals", "delegations", "actor_ref",
}

// Parse reads an authority document strictly: exactly one JSON object, no
// duplicate keys, no unknown fields, every value of its field's type and
// range. Each refusal is an *Error naming the field at fault; no message
// quotes the document beyond field names and the offending enum or pattern.
func Parse(raw []byte) (*Authority, error) {
	if err := checkDocument(raw); err != nil {
		return nil, err
	}
	m, err := object("", raw)
	if err != nil {
		return nil, docError(errcode.AuthorityInvalidType, "", "the document must be one JSON object, not "+jsonType(raw))
	}
	if err := onlyFields("", m, documentFields...); err != nil {
		return nil, err
	}
	a := &Authority{}
	for _, name := range documentFields {
		v, ok := m[name]
		if !ok {
			continue
		}
		if err := a.setField(name, v); err != nil {
			return nil, err
		}
	}
	if err := a.checkActor(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *Authority) setField(name string, v json.RawMessage) error {
	var err error
	switch name {
	case "schema":
		var s string
		if s, err = str(name, v); err == nil && s != Schema {
			err = docError(errcode.AuthorityInvalidValue, name, fmt.Sprintf("%q is not %s; this runx reads only that format", s, Schema))
		}
	case "effects":
		a.Effects, err = enumField(name, v, ParseEffects)
	case "reach":
		a.Reach, err = enumField(name, v, ParseReach)
	case "max_concurrency":
		a.MaxConcurrency, err = limitField(name, v, 1) // 0 at once would never run anything
	case "max_fanout":
		a.MaxFanout, err = limitField(name, v, 0)
	case "max_child_depth":
		a.MaxChildDepth, err = limitField(name, v, 0)
	case "max_spend_micro_usd":
		a.MaxSpendMicroUSD, err = limitField(name, v, 0)
	case "packages":
		a.Packages, err = parsePackages(name, v)
	case "standing_approvals":
		a.StandingApprovals, err = parseStandingApprovals(name, v)
	case "delegations":
		a.Delegations, err = parseDelegations(name, v)
	case "actor_ref":
		a.ActorRef, err = parseActorRef(name, v)
	}
	return err
}

// enumField reads effects or reach. The empty string is refused here even
// though ParseEffects reads it as unset: in a document, leaving the field
// out is the one way to state nothing.
func enumField[T ~uint8](name string, v json.RawMessage, parse func(string) (T, error)) (T, error) {
	s, err := str(name, v)
	if err != nil {
		return 0, err
	}
	t, perr := parse(s)
	if perr != nil || s == "" {
		want := map[string]string{"effects": "none, ask or allow", "reach": "workspace or inputs"}[name]
		return 0, docError(errcode.AuthorityInvalidValue, name, fmt.Sprintf("%q is not %s", s, want))
	}
	return t, nil
}

func limitField(name string, v json.RawMessage, min int64) (Limit, error) {
	n, err := integer(name, v, min)
	if err != nil {
		return Limit{}, err
	}
	return LimitOf(n), nil
}

// UnmarshalJSON parses with Parse, so an authority embedded in another
// document is held to the same strict rules.
func (a *Authority) UnmarshalJSON(raw []byte) error {
	p, err := Parse(raw)
	if err != nil {
		return err
	}
	*a = *p
	return nil
}

// Digest is the runx.stable-json.v1 digest (sha256 over RFC 8785 JSON) of
// the authority as parsed: fields written as Parse read them, unstated ones
// left out, so two spellings of one document share a digest, while a
// stated empty packages list stays apart from an unstated one because it
// means something else.
//
// A nil authority, no host stated one, has no digest: Digest returns "" so
// a receipt leaves authority_digest out, which is how a receipt says no
// host stated an authority.
func (a *Authority) Digest() (string, error) {
	if a == nil {
		return "", nil
	}
	return canon.Digest(a)
}

// Layer is the host layer this authority states, for Narrow. A nil
// authority gives the absent layer, so the run records that no host
// stated effects or reach.
func (a *Authority) Layer() Layer {
	if a == nil {
		return Layer{}
	}
	return Layer{Kind: LayerHost, Effects: a.Effects, Reach: a.Reach, Limits: a.Limits}
}

// Standing is the authority's standing approvals; nil for no authority.
func (a *Authority) Standing() []StandingApproval {
	if a == nil {
		return nil
	}
	return a.StandingApprovals
}

func canonJSON(raw json.RawMessage) (json.RawMessage, error) {
	return canon.CanonicalJSON(raw)
}
