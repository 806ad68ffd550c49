package run

import (
	"github.com/runxhq/runx/kernel/pkg"
	runstep "github.com/runxhq/runx/kernel/run/step"
)

// A unit's result, its settling and what it waits on are the step
// runner's (kernel/run/step); these are their names in the engine.
type (
	stepRun = runstep.Result
	settled = runstep.Settled
	pending = runstep.Pending
)

// runner is the run rc as kernel/run/step's runner takes it.
func (rc *runCtx) runner() *runstep.Run {
	r := &runstep.Run{Journal: rc.e.Journal, Fresh: rc.fresh, Decisions: rc.Decisions, Clock: rc.e.Clock, Tree: rc.Tree,
		Package: rc.pkg, Method: rc.method, RunxVersion: rc.e.RunxVersion, Sealer: rc.e.sealer(),
		Batching: &rc.batching, Held: &rc.held, Given: &rc.givenArtifacts, ProjectDir: rc.e.ProjectDir, OutputsOf: unitOutputs(rc)}
	if rc.rec != nil {
		r.ID, r.ClosureDigest = rc.rec.RunID, rc.rec.ClosureDigest
	}
	return r
}

// bindWait binds a wait of the step runner's as a request the run waits
// on.
func bindWait(rc *runCtx, step *pkg.Step, w *runstep.Wait) (*pending, error) {
	req, err := rc.asked(step, w.Local).Bind(w.Kind, w.Payload)
	if err != nil {
		return nil, err
	}
	return &pending{Request: req, RunID: rc.rec.RunID, Local: w.Local}, nil
}

// unitOutputs are the outputs a unit of s declares beyond the step's own,
// where one may name a packet, and the package whose schemas they name: an
// operation's (the connector's), a skill call's (its method's).
func unitOutputs(rc *runCtx) func(*pkg.Step) (map[string]*pkg.OutputSpec, *pkg.Package) {
	return func(s *pkg.Step) (map[string]*pkg.OutputSpec, *pkg.Package) {
		if mo := rc.manifests.Of(rc.pkg, s, rc.e.addedConnectors().With(rc.verified)); mo != nil {
			return mo.Op.Outputs, rc.pkg
		}
		if s.Kind == pkg.KindSkill && rc.e.Resolver != nil {
			if p, name, err := rc.e.Resolver.Resolve(rc.pkg.Dir, s.Skill); err == nil {
				if m, err := p.SelectMethod(name); err == nil {
					return m.Outputs, p
				}
			}
		}
		return nil, nil
	}
}
