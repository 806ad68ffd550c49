package authority

import (
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
)

// Effects is what a run may change. The zero value means a layer states
// nothing, which narrows nothing; the stated values are ordered
// none < ask < allow, and the constants' numeric order is that order, so
// narrowing is a minimum over stated values.
type Effects uint8

const (
	EffectsUnset Effects = iota
	EffectsNone
	EffectsAsk
	EffectsAllow
)

var effectsNames = [...]string{EffectsUnset: "", EffectsNone: "none", EffectsAsk: "ask", EffectsAllow: "allow"}

// ParseEffects reads one effects value as run.yaml and the authority document
// spell it. The empty string is EffectsUnset: a layer that says nothing.
func ParseEffects(s string) (Effects, error) {
	for e, name := range effectsNames {
		if s == name {
			return Effects(e), nil
		}
	}
	return EffectsUnset, &Error{Code: errcode.AuthorityInvalidValue, Rule: "effects", Message: fmt.Sprintf("effects %q is not none, ask or allow", s)}
}

func (e Effects) String() string {
	if int(e) < len(effectsNames) {
		return effectsNames[e]
	}
	return fmt.Sprintf("Effects(%d)", uint8(e))
}

// Meet is the narrower of e and o. Unset is the identity, so a layer that
// states nothing never narrows and never widens.
func (e Effects) Meet(o Effects) Effects {
	switch {
	case e == EffectsUnset:
		return o
	case o == EffectsUnset:
		return e
	case o < e:
		return o
	}
	return e
}

// IsZero reports whether nothing was stated; encoding/json's omitzero uses it.
func (e Effects) IsZero() bool { return e == EffectsUnset }

// MarshalText writes the document's spelling.
func (e Effects) MarshalText() ([]byte, error) {
	if e == EffectsUnset || int(e) >= len(effectsNames) {
		return nil, fmt.Errorf("authority: effects %d has no spelling", uint8(e))
	}
	return []byte(effectsNames[e]), nil
}

// Reach is where a run's tools may go. The zero value states nothing; the
// stated values are ordered workspace < inputs, numerically as well.
type Reach uint8

const (
	ReachUnset Reach = iota
	ReachWorkspace
	ReachInputs
)

var reachNames = [...]string{ReachUnset: "", ReachWorkspace: "workspace", ReachInputs: "inputs"}

// ParseReach reads one reach value; the empty string is ReachUnset.
func ParseReach(s string) (Reach, error) {
	for r, name := range reachNames {
		if s == name {
			return Reach(r), nil
		}
	}
	return ReachUnset, &Error{Code: errcode.AuthorityInvalidValue, Rule: "reach", Message: fmt.Sprintf("reach %q is not workspace or inputs", s)}
}

func (r Reach) String() string {
	if int(r) < len(reachNames) {
		return reachNames[r]
	}
	return fmt.Sprintf("Reach(%d)", uint8(r))
}

// Meet is the narrower of r and o; Unset is the identity.
func (r Reach) Meet(o Reach) Reach {
	switch {
	case r == ReachUnset:
		return o
	case o == ReachUnset:
		return r
	case o < r:
		return o
	}
	return r
}

// IsZero reports whether nothing was stated.
func (r Reach) IsZero() bool { return r == ReachUnset }

// MarshalText writes the document's spelling.
func (r Reach) MarshalText() ([]byte, error) {
	if r == ReachUnset || int(r) >= len(reachNames) {
		return nil, fmt.Errorf("authority: reach %d has no spelling", uint8(r))
	}
	return []byte(reachNames[r]), nil
}
