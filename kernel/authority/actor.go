package authority

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/errcode"
)

// LocalActor is the actor of a run no host delegated: the person operating
// the project. A run's actor owns what outlives the run (a process it
// started), which any later run of the same actor in the project reaches.
const LocalActor = "local"

// maxActorRef bounds an actor reference: it is kept in every process
// record and compared on every reach, so it stays a name, not a document.
const maxActorRef = 256

// Actor is the actor whose run this authority governs: the actor_ref a
// host stated, else the local person. A nil authority is the local person's.
func (a *Authority) Actor() string {
	if a == nil || a.ActorRef == "" {
		return LocalActor
	}
	return a.ActorRef
}

// parseActorRef reads actor_ref: a non-empty name of printable characters
// with no space, so it reads the same in a listing, a log and a receipt.
func parseActorRef(field string, raw json.RawMessage) (string, error) {
	s, err := str(field, raw)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", docError(errcode.AuthorityInvalidValue, field, "must not be empty; leave it out for the local person")
	}
	if len(s) > maxActorRef {
		return "", docError(errcode.AuthorityInvalidValue, field, fmt.Sprintf("is longer than %d bytes", maxActorRef))
	}
	if !utf8.ValidString(s) {
		return "", docError(errcode.AuthorityInvalidValue, field, "is not UTF-8")
	}
	for _, r := range s {
		// ASCII space and controls, and the C1 controls: what would
		// split or hide a name in a listing.
		if r <= ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return "", docError(errcode.AuthorityInvalidValue, field, "holds a space or a control character; an actor reference is one printable name")
		}
	}
	return s, nil
}

// checkActor holds a document's delegations to its actor: a host
// delegating to another actor names it as the run's actor_ref and as each
// delegation's principal_ref, so a delegation naming someone else would
// charge and reach for an actor the run is not.
func (a *Authority) checkActor() error {
	if a.ActorRef == "" {
		return nil
	}
	for i, d := range a.Delegations {
		if d.PrincipalRef != "" && d.PrincipalRef != a.ActorRef {
			return docError(errcode.AuthorityInvalidValue, joinField(indexField("delegations", i), "principal_ref"),
				"names an actor other than the document's actor_ref; a run acts for one actor")
		}
	}
	return nil
}
