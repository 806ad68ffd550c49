package run

import (
	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/run/gate"
)

// LocalActor is the actor of a run no host delegated: the person operating
// this project. What a run's actor owns beyond the run (a process it
// started) is reached by any later run of the same actor in the project.
const LocalActor = authority.LocalActor

// unreadableActor is the actor of a run whose recorded authority does not
// parse. Its space keeps it from ever naming a stated actor (actor_ref
// holds none), so such a run reaches no actor's state; the drive refuses
// the run before any step anyway.
const unreadableActor = "unreadable authority"

// actor names whose run this is, for the capabilities that keep state past
// a run (told in every call's binding): the actor_ref the host stated in
// the run's authority, else the local person. A child run records its
// root's authority, so a tree acts for one actor.
func (rc *runCtx) actor() string {
	rc.actorOnce.Do(func() {
		a, err := gate.Recorded(rc.rec.Authority)
		if err != nil {
			rc.actorName = unreadableActor
			return
		}
		rc.actorName = a.Actor()
	})
	return rc.actorName
}
