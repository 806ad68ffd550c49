package step

import (
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/runstate"
)

// Run is the run a unit belongs to, as the step runner takes it: its
// record, its place in the tree, what its units' receipts name and where
// they are sealed and recorded.
type Run struct {
	// ID is the run's id.
	ID string
	// Journal is the run's record.
	Journal *journal.Journal
	// Fresh is a run this call created: nothing of it can be recorded
	// before its first drive, so nothing is read back.
	Fresh bool
	// Decisions are the person's decisions the run holds, by address.
	Decisions map[string]*journal.Decision
	// Clock is the kernel's clock.
	Clock func() time.Time
	// Tree is the run's place in its tree.
	Tree runstate.Tree

	// Package and Method are what the run runs, ClosureDigest the closure
	// it was bound to, RunxVersion the runx that runs it: what each unit's
	// receipt names.
	Package       *pkg.Package
	Method        *pkg.Method
	ClosureDigest string
	RunxVersion   string
	// Sealer signs and stores its units' receipts.
	Sealer Sealer
	// Batching and Held are where a settled unit's record waits when it
	// is not recorded at once: a fan-out's batch, the seal's transaction.
	Batching *Batching
	Held     *Held
	// Given are the artifacts its units were given by reference.
	Given *Given
	// ProjectDir is the project's state directory, whose artifact store
	// keeps the packets its units produce (packets.go).
	ProjectDir string
	// OutputsOf are the outputs a unit of a step declares beyond the
	// step's own (an operation's, a skill call's method's), where one may
	// name a packet, and the package whose schemas they name.
	OutputsOf func(*pkg.Step) (map[string]*pkg.OutputSpec, *pkg.Package)
}

// Wait is a request a unit of the run waits on, at local inside the run,
// for the engine to bind: its kind and payload.
type Wait struct {
	Local   string
	Kind    contract.RequestKind
	Payload map[string]any
}
