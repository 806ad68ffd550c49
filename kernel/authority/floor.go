package authority

import (
	"slices"
	"strconv"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// Verdict is the floor's answer for one change.
type Verdict string

const (
	// VerdictAllow: the floor adds no gate. A change that carries its own
	// approval still waits on that one.
	VerdictAllow Verdict = "allow"
	// VerdictGate: the change waits on a floor approval of GateType.
	VerdictGate Verdict = "gate"
	// VerdictRefuse: the change is refused; Code says why.
	VerdictRefuse Verdict = "refuse"
)

// GateType is the type of approval gate a change waits on.
type GateType string

const (
	// GateTool holds a local effect: an edit, a command, a process start,
	// a store write. It carries exactly what executes.
	GateTool GateType = "tool"
	// GateWrite holds a connector operation's write, bound to the call's
	// exact intent.
	GateWrite GateType = "write"
)

// Decision is the floor's answer and the rule behind it. Rule names which
// layer's effects decided and, under ask, which standing approval admitted
// the change or that none covered it; records and receipts cite it.
type Decision struct {
	Verdict  Verdict      `json:"verdict"`
	GateType GateType     `json:"gate_type,omitempty"`
	Rule     string       `json:"rule"`
	Code     errcode.Code `json:"code,omitempty"`
	// Standing lists the standing_approvals entries that admitted the
	// change, by index, so the record can name each.
	Standing []int `json:"standing,omitempty"`
	// Change is what was decided. It is described in words only when a
	// refusal is built, which keeps an allowed decision cheap.
	Change Change `json:"change"`
}

// Err is the refusal as an *Error, or nil when the change is not refused.
func (d Decision) Err() error {
	if d.Verdict != VerdictRefuse {
		return nil
	}
	return refusal(d.Code, d.Rule, d.Change.describe()+" is refused")
}

// Floor decides one change before its step or call is claimed, so nothing
// that waits on a person is ever "may have run":
//
//   - A turn's own call never writes to store, at any effects.
//   - Under effects allow nothing waits.
//   - Under effects none every change is refused: local effects, provider
//     writes even with their own approval, and every store write.
//   - Under effects ask a change with an approval of its own keeps that one
//     and the floor adds none; a package's own store state is exempt; a
//     change a standing approval covers proceeds, naming the entry; any
//     other change waits on a gate, of type tool for a local effect and of
//     type write for an operation write. Standing approvals never cover a
//     write's own approval: that approval stays the person's to give.
//
// eff must come from Narrow; a zero Effective has no effects decided and is
// treated as none, so a missing decision fails closed.
func Floor(eff Effective, change Change, standing []StandingApproval) Decision {
	d := Decision{Change: change}
	switch change.Kind {
	case ChangeNone:
		d.Verdict, d.Rule = VerdictAllow, "changes nothing"
		return d
	case ChangeEdit, ChangeCommand, ChangeProcessStart, ChangeOperationWrite, ChangeStoreWrite:
	default:
		// An unknown or missing kind is a caller's bug; refusing keeps it
		// from running unseen under a floor that does not know what it does
		// (a zero Change is not "no change": that must be said).
		d.Verdict, d.Code, d.Rule = VerdictRefuse, errcode.ChangeInvalid, "the floor knows no change of this kind"
		return d
	}
	if change.Kind == ChangeStoreWrite && change.FromTurn {
		d.Verdict, d.Code = VerdictRefuse, errcode.TurnStoreWriteRefused
		d.Rule = "a turn's own call never writes to store; a stream is written by a package's deterministic step"
		return d
	}
	effects := "effects " + eff.Effects.String() + " (" + eff.EffectsFrom.String() + ")"
	switch eff.Effects {
	case EffectsAllow:
		d.Verdict, d.Rule = VerdictAllow, effects
		return d
	case EffectsAsk:
	default:
		if eff.Effects == EffectsUnset {
			effects = "effects not decided, so none"
		}
		d.Verdict, d.Code, d.Rule = VerdictRefuse, errcode.EffectsNoneRefused, effects+" refuses every change"
		return d
	}
	if change.OwnApproval {
		d.Verdict, d.Rule = VerdictAllow, effects+"; the change carries its own approval, so the floor adds none"
		return d
	}
	if change.Kind == ChangeStoreWrite && change.OwnStore {
		d.Verdict, d.Rule = VerdictAllow, effects+"; a package's own store state is exempt"
		return d
	}
	admitted, why := cover(change, standing)
	if admitted != nil {
		d.Verdict, d.Standing = VerdictAllow, admitted
		d.Rule = effects + "; admitted by " + entryNames(admitted, standing)
		return d
	}
	d.Verdict, d.Rule = VerdictGate, effects+"; "+why
	d.GateType = GateTool
	if !change.local() {
		d.GateType = GateWrite
	}
	return d
}

// cover finds the standing approvals that admit change. It returns the
// admitting entries' indexes, or nil and why none covers it.
func cover(change Change, standing []StandingApproval) ([]int, string) {
	if change.local() {
		for i := range standing {
			if standing[i].Local {
				return []int{i}, ""
			}
		}
	}
	switch change.Kind {
	case ChangeEdit:
		return coverEdit(change.Paths, standing)
	case ChangeCommand, ChangeProcessStart:
		if change.Argv == nil {
			return nil, "its argv is not known yet, so only a local standing approval could cover it"
		}
		for i := range standing {
			if c := standing[i].Commands; c != nil && argvCovers(c.ArgvPrefix, change.Argv) {
				return []int{i}, ""
			}
		}
		return nil, notCovered(standing, StandingCommands, "its argv")
	case ChangeOperationWrite:
		for i := range standing {
			if o := standing[i].Operations; o != nil {
				for _, name := range o.Names {
					if operationCovers(name, change.Operation) {
						return []int{i}, ""
					}
				}
			}
		}
		return nil, notCovered(standing, StandingOperations, strconv.Quote(change.Operation))
	}
	// A store write outside the package's own state: only local covers it.
	return nil, notCovered(standing, "", "it")
}

// coverEdit admits an edit when every path is under some edits entry. The
// entries are a set of confirmations, so a bundle across two approved trees
// is admitted and both entries are named.
func coverEdit(paths []string, standing []StandingApproval) ([]int, string) {
	if paths == nil {
		return nil, "its paths are not known yet, so only a local standing approval could cover it"
	}
	var admitted []int
	for _, p := range paths {
		found := -1
		if cleanRelative(p) {
		search:
			for i := range standing {
				if e := standing[i].Edits; e != nil {
					for _, entry := range e.Paths {
						if pathCovers(entry, p) {
							found = i
							break search
						}
					}
				}
			}
		}
		if found < 0 {
			return nil, notCovered(standing, StandingEdits, strconv.Quote(p))
		}
		if !slices.Contains(admitted, found) {
			admitted = append(admitted, found)
		}
	}
	if admitted == nil {
		// An edit of no files changes nothing an entry could name; it is
		// still an edit, so it waits rather than slipping through.
		return nil, "it names no paths, so only a local standing approval could cover it"
	}
	return admitted, ""
}

// notCovered says which entries of the relevant kind were tried and did not
// cover what, or that there were none.
func notCovered(standing []StandingApproval, kind, what string) string {
	var tried []int
	for i := range standing {
		if kind != "" && standing[i].Kind() == kind {
			tried = append(tried, i)
		}
	}
	if tried == nil {
		if kind == "" {
			return "no local standing approval covers it"
		}
		return "no " + kind + " standing approval covers it"
	}
	verb := " does not cover "
	if len(tried) > 1 {
		verb = " do not cover "
	}
	return entryNames(tried, standing) + verb + what
}

// entryNames names entries as records do: standing_approvals[1] (edits).
func entryNames(idx []int, standing []StandingApproval) string {
	var b strings.Builder
	for n, i := range idx {
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString("standing_approvals[")
		b.WriteString(strconv.Itoa(i))
		b.WriteString("] (")
		b.WriteString(standing[i].Kind())
		b.WriteString(")")
	}
	return b.String()
}
