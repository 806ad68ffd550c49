package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// Default round budgets: what a drive may spend when the person states no
// other (--max-rounds, --max-run-rounds).
const (
	DefaultRoundsPerTurn = 16
	DefaultRoundsPerRun  = 64
)

// Driver works a run's agent turns with one provider. It is made per drive:
// its consent is the person's --drive for this run only.
type Driver struct {
	Kernel   *run.Kernel
	Provider *Provider
	Budget   contract.AgentBudget
	// HTTP is the client rounds use (default: one with RequestTimeout).
	HTTP *http.Client
	// Concurrency bounds the turns worked at once (default: the run's
	// concurrency limit, as a fan-out's is).
	Concurrency int

	dialect Dialect
	taint   *credential.Taint
	mu      sync.Mutex
	report  *contract.AgentRun
	turns   map[string]*contract.AgentTurn
	order   []string
	// asked says a call this drive made waits on a person: the envelope
	// is read again so it lists what the person is asked.
	asked  bool
	states map[string]*turnState
}

// NewDriver checks the provider and budget and makes a driver.
func NewDriver(k *run.Kernel, p *Provider, b contract.AgentBudget) (*Driver, error) {
	d, err := DialectFor(p.Dialect)
	if err != nil {
		return nil, err
	}
	if p.Model == "" {
		return nil, contract.Errorf(errcode.AgentModelMissing, "a managed run needs agent.model: runx names no model of its own")
	}
	if b.RoundsPerTurn <= 0 {
		b.RoundsPerTurn = DefaultRoundsPerTurn
	}
	if b.RoundsPerRun <= 0 {
		b.RoundsPerRun = DefaultRoundsPerRun
	}
	// The provider key joins the kernel's taint set, so it is scrubbed
	// from the agent transcript and from everything the run writes.
	taint := k.Taint()
	if taint == nil {
		taint = &credential.Taint{}
	}
	taint.Add(p.Key)
	return &Driver{Kernel: k, Provider: p, Budget: b, dialect: d, taint: taint,
		HTTP:   &http.Client{Timeout: RequestTimeout},
		report: &contract.AgentRun{Provider: p.Name, Model: p.Model, Dialect: p.Dialect, Budget: b, Turns: []contract.AgentTurn{}},
		turns:  map[string]*contract.AgentTurn{}, states: map[string]*turnState{}}, nil
}

// answer is how a worked turn ended: with a value for the run, or not.
type answer struct {
	address, digest string
	value           json.RawMessage
	statement       *run.AgentStatement
}

// Drive works every agent turn the run waits on, answers each through
// Kernel.Resume and goes on until the run seals or waits on nothing a model
// can do (an approval, a question, a call a person must decide). The
// envelope it returns carries the agent report.
func (d *Driver) Drive(ctx context.Context, env *contract.SkillRun) (*contract.SkillRun, error) {
	if env.Status != contract.StatusSealed {
		if err := d.recordDrive(ctx, env.RunID); err != nil {
			return nil, err
		}
	}
	for env.Status == contract.StatusNeedsAgent || env.Status == contract.StatusNeedsApproval {
		var open []contract.Request
		for _, r := range env.Requests {
			if r.Kind == contract.RequestAgent {
				open = append(open, r)
			}
		}
		if len(open) == 0 {
			break
		}
		d.mu.Lock()
		d.asked = false
		d.mu.Unlock()
		answers := d.workAll(ctx, env.RunID, open)
		if ctx.Err() != nil {
			break
		}
		if len(answers) == 0 {
			// A call that waits (on a person, or on a child run's turn)
			// may have opened turns this drive can work: read the run
			// again, and go on only when it has one not worked yet.
			if !d.asked {
				break
			}
			fresh, err := d.Kernel.Resume(ctx, run.ResumeRequest{RunID: env.RunID})
			if err != nil {
				return nil, err
			}
			env = fresh
			d.mu.Lock()
			d.asked = false
			d.mu.Unlock()
			if !hasNewTurn(env, open) {
				break
			}
			continue
		}
		doc := contract.ResumeDocument{Answers: map[string]*contract.ResumeEntry{}}
		stated := map[string]*run.AgentStatement{}
		for _, a := range answers {
			doc.Answers[a.address] = &contract.ResumeEntry{RequestDigest: a.digest, Value: a.value}
			stated[a.address] = a.statement
		}
		raw, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		next, err := d.Kernel.Resume(ctx, run.ResumeRequest{RunID: env.RunID, Document: raw, Agents: stated})
		if err != nil {
			return nil, err
		}
		refused := map[string]bool{}
		for _, r := range next.RefusedAnswers {
			refused[r.Address] = true
			d.refused(r)
		}
		for _, a := range answers {
			if !refused[a.address] {
				d.mu.Lock()
				delete(d.states, a.address)
				d.mu.Unlock()
			}
		}
		env = next
	}
	if d.asked && env.Status != contract.StatusSealed && ctx.Err() == nil {
		// The drive stopped on a call that waits: the envelope lists it.
		fresh, err := d.Kernel.Resume(ctx, run.ResumeRequest{RunID: env.RunID})
		if err != nil {
			return nil, err
		}
		env = fresh
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	out := *env
	rep := *d.report
	rep.Turns = make([]contract.AgentTurn, 0, len(d.order))
	for _, a := range d.order {
		rep.Turns = append(rep.Turns, *d.turns[a])
	}
	out.Agent = &rep
	return &out, nil
}

// workAll works the open turns at once, up to the run's concurrency.
func (d *Driver) workAll(ctx context.Context, runID string, open []contract.Request) []answer {
	limit := d.Concurrency
	if limit <= 0 {
		limit = d.runConcurrency(ctx, runID)
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var out []answer
	for _, r := range open {
		wg.Add(1)
		sem <- struct{}{}
		go func(r contract.Request) {
			defer wg.Done()
			defer func() { <-sem }()
			if a := d.work(ctx, runID, r); a != nil {
				mu.Lock()
				out = append(out, *a)
				mu.Unlock()
			}
		}(r)
	}
	wg.Wait()
	return out
}

// runConcurrency is the run's concurrency limit: its authority's
// max_concurrency under the host ceiling.
func (d *Driver) runConcurrency(ctx context.Context, runID string) int {
	host := d.Kernel.ConcurrencyCeiling()
	rec, err := d.Kernel.RunRecord(ctx, runID)
	if err != nil || len(rec.Authority) == 0 {
		return authority.ConcurrencyFor(0, 0, host)
	}
	a, err := authority.Parse(rec.Authority)
	if err != nil || a == nil {
		return authority.ConcurrencyFor(0, 0, host)
	}
	return authority.ConcurrencyFor(0, a.MaxConcurrency.Int(), host)
}

// turnRecord is the report line of a turn, made on first sight.
func (d *Driver) turnRecord(address string) *contract.AgentTurn {
	t := d.turns[address]
	if t == nil {
		t = &contract.AgentTurn{Address: address}
		d.turns[address] = t
		d.order = append(d.order, address)
	}
	return t
}

// settle records where a turn got to in the report.
func (d *Driver) settle(address string, status contract.AgentTurnStatus, st *turnState, perr *ProviderError, e error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.turnRecord(address)
	t.Status = status
	if st != nil {
		t.Rounds, t.Calls = st.rounds, st.calls
		t.Usage = contract.AgentUsage{InputTokens: st.usage.InputTokens, OutputTokens: st.usage.OutputTokens}
	}
	if perr != nil {
		t.ProviderStatus, t.ProviderMessage = perr.Status, perr.Message
	}
	t.Error = nil
	if e != nil {
		t.Error = contract.BodyOf(e)
	}
}

// refused feeds a refused output back to its turn's conversation.
func (d *Driver) refused(r contract.RefusedAnswer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.turnRecord(r.Address)
	t.Status = contract.TurnRefusedOutput
	body := r.Error
	t.Error = &body
	if st := d.states[r.Address]; st != nil {
		st.refusal = &body
	}
}

// reserveRound takes one round from the run's budget.
func (d *Driver) reserveRound() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.report.Rounds >= d.Budget.RoundsPerRun {
		return false
	}
	d.report.Rounds++
	return true
}

func (d *Driver) addUsage(u Usage) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.report.Usage.InputTokens += u.InputTokens
	d.report.Usage.OutputTokens += u.OutputTokens
}

func (d *Driver) runTokens() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.report.Usage.InputTokens + d.report.Usage.OutputTokens
}

func (d *Driver) statement(st *turnState, perr *ProviderError) *run.AgentStatement {
	s := &run.AgentStatement{Provider: d.Provider.Name, Model: d.Provider.Model, Dialect: d.Provider.Dialect,
		Rounds: st.rounds, InputTokens: st.usage.InputTokens, OutputTokens: st.usage.OutputTokens}
	if perr != nil {
		s.ProviderStatus, s.ProviderMessage = perr.Status, perr.Message
	}
	return s
}

func failureValue(code errcode.Code, reason string) json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"failure": map[string]string{"reason": string(code) + ": " + reason}})
	return raw
}

func errorContent(err error) string {
	b := contract.BodyOf(err)
	raw, _ := json.Marshal(map[string]any{"status": contract.CallError, "error": b})
	return string(raw)
}

func roundBudgetReason(d *Driver, st *turnState) (string, bool) {
	if st.rounds >= d.Budget.RoundsPerTurn {
		return fmt.Sprintf("the turn used its budget of %d rounds (rounds_per_turn)", d.Budget.RoundsPerTurn), true
	}
	return "", false
}

// hasNewTurn reports whether env waits on an agent turn (by address and
// digest) that is not among those just worked.
func hasNewTurn(env *contract.SkillRun, worked []contract.Request) bool {
	seen := map[string]bool{}
	for _, r := range worked {
		seen[r.Address+" "+r.RequestDigest] = true
	}
	for _, r := range env.Requests {
		if r.Kind == contract.RequestAgent && !seen[r.Address+" "+r.RequestDigest] {
			return true
		}
	}
	return false
}
