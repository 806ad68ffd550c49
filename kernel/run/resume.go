package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/resumedoc"
	"github.com/runxhq/runx/kernel/run/runstate"
	runstep "github.com/runxhq/runx/kernel/run/step"
	"github.com/runxhq/runx/sdk/errcode"
)

// ResumeRequest is `runx resume <run-id> <file|->`.
type ResumeRequest struct {
	RunID    string
	Document []byte
	// PackageDigest and ClosureDigest bind the continuation when a host
	// states them (--package-digest, --closure-digest).
	PackageDigest string
	ClosureDigest string
	// Agents are what a managed agent states about the turns it answers, by
	// address from the root: in process only, never part of the document.
	Agents map[string]*AgentStatement
	// MaxSpend narrows the run's max_spend_micro_usd from here on
	// (--max-spend); it can never widen it.
	MaxSpend authority.Limit
}

func entriesOf(doc *contract.ResumeDocument) int {
	return len(doc.Answers) + len(doc.Approvals)
}

// Resume admits a resume document into a paused run and drives it on. Any
// entry that names no request the run waits on, or binds another digest,
// refuses the whole document and changes nothing.
func (e *engine) Resume(ctx context.Context, req ResumeRequest) (*contract.SkillRun, error) {
	rec, err := e.Journal.GetRun(durable(ctx), req.RunID)
	if err != nil {
		return nil, err
	}
	if rec.ParentRunID != "" {
		return nil, contract.Errorf(errcode.ResumeChildRun, "run %s is a child run; resume its root run instead", rec.RunID)
	}
	if err := checkStated(rec, req); err != nil {
		return nil, err
	}
	doc, err := resumedoc.Parse(req.Document)
	if err != nil {
		return nil, err
	}
	if doc.Close != nil {
		return e.close(ctx, rec, doc)
	}
	if rec.State == journal.StateSealed {
		return e.resumeSealed(ctx, rec, doc)
	}
	drv, err := e.Journal.Drive(rec.RunID)
	if err != nil {
		return nil, err
	}
	defer drv.Release()
	reportDriving(ctx, rec.RunID)
	p, m, err := e.bind(rec)
	if err != nil {
		return nil, err
	}
	e.prestart(ctx, m)
	state, err := e.treeState(ctx, rec.RunID)
	if err != nil {
		return nil, err
	}
	var standing json.RawMessage
	if len(doc.StandingApprovals) > 0 {
		if _, err := authority.ParseStandingApprovals(doc.StandingApprovals); err != nil {
			return nil, err
		}
		if standing, err = withStanding(rec.Authority, doc.StandingApprovals); err != nil {
			return nil, err
		}
	}
	if n, ok := req.MaxSpend.Value(); ok {
		current := rec.Authority
		if standing != nil {
			current = standing
		}
		if a, err := gate.Recorded(current); err != nil {
			return nil, err
		} else if a == nil {
			current = nil
		}
		if standing, err = connector.WithSpendLimit(current, n); err != nil {
			return nil, err
		}
	}
	admit, answers, err := state.admit(doc)
	if err != nil {
		return nil, err
	}
	if standing != nil {
		// The person's new standing approvals govern every later step, and
		// approve each open floor gate they cover when the run goes on; a
		// narrower money limit holds every later call.
		if err := e.Journal.SetAuthority(durable(ctx), rec.RunID, standing); err != nil {
			return nil, err
		}
		rec.Authority = standing
	}
	for runID, ds := range admit {
		if err := e.Journal.Asks().AdmitDecisions(durable(ctx), runID, ds); err != nil {
			return nil, err
		}
	}
	e.hook("after_decisions_admitted")
	if err := e.recoverBegun(ctx, rec.RunID, ""); err != nil {
		return nil, err
	}
	if err := e.Journal.SetRunning(durable(ctx), rec.RunID); err != nil {
		return nil, err
	}
	var inputs map[string]any
	if err := json.Unmarshal(rec.Inputs, &inputs); err != nil {
		return nil, err
	}
	rc, err := e.root(rec, p, m, inputs)
	if err != nil {
		return nil, err
	}
	if err := rc.resumeAnswered(ctx); err != nil {
		return nil, err
	}
	rc.Answers, rc.agents = answers, req.Agents
	return e.finish(ctx, rc, rc.drive(ctx))
}

// bind checks the continuation is of the package and closure the run paused
// under, as they are now.
func (e *engine) bind(rec *journal.Run) (*pkg.Package, *pkg.Method, error) {
	p, err := e.loadPackage(rec.PackageDir)
	if err != nil {
		return nil, nil, contract.Errorf(errcode.ResumePackageDrift, "package %s of run %s no longer loads: %v", rec.PackageDir, rec.RunID, err)
	}
	if p.Digest != rec.PackageDigest {
		return nil, nil, contract.Errorf(errcode.ResumePackageDrift, "package %s changed since run %s paused (was %s, now %s); start a new run", rec.SkillName, rec.RunID, rec.PackageDigest, p.Digest)
	}
	if closure := e.closureOf(p); closure != rec.ClosureDigest {
		return nil, nil, contract.Errorf(errcode.ResumeClosureDrift, "run %s paused under another closure (%s, now %s): runx was upgraded, or a child package it runs or an added connector it calls changed; it cannot cross any of them, start a new run", rec.RunID, rec.ClosureDigest, closure)
	}
	m := p.Method(rec.Method)
	if m == nil {
		return nil, nil, contract.Errorf(errcode.ResumePackageDrift, "package %s no longer has method %s", rec.SkillName, rec.Method)
	}
	return p, m, nil
}

// checkStated refuses a continuation whose host-stated bindings
// (--package-digest, --closure-digest) are not the run's, whatever the
// run's state: a sealed run or a close is held to them as an open one is.
func checkStated(rec *journal.Run, req ResumeRequest) error {
	if req.PackageDigest != "" && req.PackageDigest != rec.PackageDigest {
		return contract.Errorf(errcode.BindingPackageMismatch, "--package-digest %s is not the digest run %s was bound to (%s)", req.PackageDigest, rec.RunID, rec.PackageDigest)
	}
	if req.ClosureDigest != "" && req.ClosureDigest != rec.ClosureDigest {
		return contract.Errorf(errcode.BindingClosureMismatch, "--closure-digest %s is not the digest run %s was bound to (%s)", req.ClosureDigest, rec.RunID, rec.ClosureDigest)
	}
	return nil
}

// waitingAt is a request open somewhere in the tree, by address from the root.
type waitingAt struct {
	runID, local string
	req          *journal.Request
}

// treeState is what a resume is checked against: every open request and
// every admitted decision of the run and its children.
type treeState struct {
	open      map[string]waitingAt
	decisions map[string]waitingDecision
}

type waitingDecision struct {
	runID string
	d     *journal.Decision
}

func (e *engine) treeState(ctx context.Context, rootID string) (*treeState, error) {
	st := &treeState{open: map[string]waitingAt{}, decisions: map[string]waitingDecision{}}
	var walk func(runID, prefix string) error
	walk = func(runID, prefix string) error {
		full := func(a string) string {
			if prefix == "" {
				return a
			}
			return prefix + "#" + a
		}
		reqs, err := e.Journal.Asks().Requests(durable(ctx), runID)
		if err != nil {
			return err
		}
		for _, r := range reqs {
			if r.State == journal.RequestOpen {
				st.open[full(r.Address)] = waitingAt{runID: runID, local: r.Address, req: r}
			}
		}
		ds, err := e.Journal.Asks().Decisions(durable(ctx), runID)
		if err != nil {
			return err
		}
		for _, d := range ds {
			st.decisions[full(d.Address)] = waitingDecision{runID: runID, d: d}
		}
		children, err := e.Journal.Children(durable(ctx), runID)
		if err != nil {
			return err
		}
		for _, c := range children {
			if err := walk(c.RunID, full(c.ParentAddress)); err != nil {
				return err
			}
		}
		return nil
	}
	return st, walk(rootID, "")
}

// admit checks every entry of a document against the tree and returns the
// person's decisions to record now (by run) and the agent answers to offer
// the steps that use them (by address from the root).
func (st *treeState) admit(doc *contract.ResumeDocument) (map[string][]*journal.Decision, map[string]*journal.Decision, error) {
	admit := map[string][]*journal.Decision{}
	answers := map[string]*journal.Decision{}
	for _, lane := range []struct {
		name    string
		entries map[string]*contract.ResumeEntry
	}{{contract.LaneAnswers, doc.Answers}, {contract.LaneApprovals, doc.Approvals}} {
		for _, addr := range sortedKeys(lane.entries) {
			entry := lane.entries[addr]
			if entry == nil {
				return nil, nil, contract.Errorf(errcode.ResumeEntryInvalid, "%s entry %s is empty", lane.name, addr)
			}
			value, err := entryValue(lane.name, entry)
			if err != nil {
				return nil, nil, fmt.Errorf("%s entry %s: %w", lane.name, addr, err)
			}
			w, open := st.open[addr]
			if !open {
				if taken, ok := st.decisions[addr]; ok && taken.d.Used && taken.d.Lane == lane.name &&
					taken.d.RequestDigest == entry.RequestDigest && jsonEqual(taken.d.Value, value) {
					continue // the same answer the run already took: accepted, changes nothing
				}
				return nil, nil, contract.Errorf(errcode.ResumeUnknownAddress, "%s entry %s names no request the run waits on; nothing was changed", lane.name, addr)
			}
			if w.req.Kind == contract.RequestWait {
				return nil, nil, contract.Errorf(errcode.ResumeWaitNotAnswerable, "%s is a wait runx settles itself; it takes no answer", addr)
			}
			if entry.RequestDigest != w.req.RequestDigest {
				return nil, nil, contract.Errorf(errcode.ResumeDigestMismatch, "%s entry %s binds %s, but the run waits on %s there; nothing was changed", lane.name, addr, entry.RequestDigest, w.req.RequestDigest)
			}
			if err := checkLane(lane.name, addr, w.req); err != nil {
				return nil, nil, err
			}
			if w.req.Kind == contract.RequestQuestion {
				if err := resumedoc.CheckQuestions(addr, w.req.Payload, value); err != nil {
					return nil, nil, err
				}
			}
			if runstate.IsRetryRequest(w.req.Payload) {
				if err := runstep.CheckRetryValue(addr, value); err != nil {
					return nil, nil, err
				}
			} else if w.req.Kind == contract.RequestApproval && entry.Approved == nil {
				// A value is never read as a person's decision: {"Approved":
				// true} under value would decode as one.
				return nil, nil, contract.Errorf(errcode.ResumeEntryInvalid, "%s is an approval: its entry takes approved (true or false) and reason, not a value; nothing was changed", addr)
			}
			d := &journal.Decision{RunID: w.runID, Address: w.local, Lane: lane.name, RequestDigest: entry.RequestDigest, Value: value}
			if lane.name == contract.LaneAnswers {
				answers[addr] = d
				continue
			}
			if prev, ok := st.decisions[addr]; ok && !prev.d.Used && jsonEqual(prev.d.Value, value) && prev.d.RequestDigest == d.RequestDigest {
				continue // delivered again: recorded once
			}
			admit[w.runID] = append(admit[w.runID], d)
		}
	}
	return admit, answers, nil
}

// checkLane keeps agent work and human authorization apart.
func checkLane(lane, addr string, req *journal.Request) error {
	agent := req.Kind == contract.RequestAgent
	if lane == contract.LaneAnswers && !agent {
		return contract.Errorf(errcode.ResumeWrongLane, "%s is a %s request: only a person's decision under approvals resolves it, never an agent answer", addr, req.Kind)
	}
	if lane == contract.LaneApprovals && agent {
		return contract.Errorf(errcode.ResumeWrongLane, "%s is an agent turn: its answer goes under answers, not approvals", addr)
	}
	return nil
}

// entryValue is the decision an entry carries, in the form the run records.
func entryValue(lane string, e *contract.ResumeEntry) (json.RawMessage, error) {
	if e.RequestDigest == "" {
		return nil, contract.Errorf(errcode.ResumeEntryInvalid, "it needs the request_digest the run reported")
	}
	if e.Approved != nil || e.Reason != nil {
		if lane != contract.LaneApprovals {
			return nil, contract.Errorf(errcode.ResumeEntryInvalid, "approved and reason belong to an approval, under approvals")
		}
		if e.Approved == nil || e.Reason == nil || len(e.Value) > 0 {
			return nil, contract.Errorf(errcode.ResumeEntryInvalid, "an approval takes approved and reason, and no value")
		}
		return json.Marshal(gate.Approval{Approved: *e.Approved, Reason: *e.Reason})
	}
	if len(e.Value) == 0 {
		return nil, contract.Errorf(errcode.ResumeEntryInvalid, "it carries no value")
	}
	return e.Value, nil
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xa, yb)
}

func sortedKeys(m map[string]*contract.ResumeEntry) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// withStanding is a run's authority with its standing approvals replaced by
// the set a person's resume brings.
func withStanding(current, standing json.RawMessage) (json.RawMessage, error) {
	doc := map[string]json.RawMessage{}
	a, err := gate.Recorded(current)
	if err != nil {
		return nil, err
	}
	if a != nil {
		if err := json.Unmarshal(current, &doc); err != nil {
			return nil, err
		}
	}
	doc["standing_approvals"] = standing
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if _, err := authority.Parse(out); err != nil {
		return nil, err
	}
	return out, nil
}
