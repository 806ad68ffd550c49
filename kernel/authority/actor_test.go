package authority

import "testing"

// TestActorRef: a stated actor_ref is the run's actor and takes part in the
// digest; no authority, or one that states none, is the local person's.
func TestActorRef(t *testing.T) {
	var none *Authority
	if got := none.Actor(); got != LocalActor {
		t.Fatalf("no authority: actor %q, want %q", got, LocalActor)
	}
	if got := mustParse(t, `{"effects":"allow"}`).Actor(); got != LocalActor {
		t.Fatalf("no actor_ref: actor %q, want %q", got, LocalActor)
	}
	a := mustParse(t, `{"actor_ref":"actor:bot","delegations":[{"connector":"c","principal_ref":"actor:bot","mandate_ref":"m","terms":[{"verbs":["read"]}]}]}`)
	if got := a.Actor(); got != "actor:bot" {
		t.Fatalf("actor %q, want actor:bot", got)
	}
	b := mustParse(t, `{"actor_ref":"actor:other","delegations":[{"connector":"c","principal_ref":"actor:other","mandate_ref":"m","terms":[{"verbs":["read"]}]}]}`)
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da == db {
		t.Fatal("two actors share an authority digest")
	}
}
