package step

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// An effect happens once, or the run waits. A call that may act, and whose
// second send nothing would make harmless, is claimed in the run's record
// before it is sent. A driver that finds a claim with no outcome recorded
// (its predecessor was killed, or a stop cut the call short) cannot know
// whether the effect happened: it sends nothing, and the call waits at
// <address>/retry until a person decides. {"retry": true} sends it again
// as a new attempt; {"retry": false} leaves it failed with retry_declined.

// EventCallClaimed records that a call which may act was sent: its address
// and attempt, written before the call leaves.
const EventCallClaimed = "step.claimed"

// EventCallUnclaimed withdraws a claim whose call provably never acted:
// its plugin could not be started or found, or it answered refused (not
// carried out). A driver stopped before it recorded the unit then runs it
// again rather than asking a person about a call that never left.
const EventCallUnclaimed = "step.unclaimed"

// Unconfirmed is the status of a unit whose earlier attempt nothing
// settles: not settled, it waits at its retry.
const Unconfirmed = "unconfirmed"

// ResendClass is what a driver may do with a call an earlier driver sent
// and recorded no outcome of, read from the capability's description alone.
type ResendClass int

const (
	// ResendFree: it changes nothing (effect none or read, not priced), so
	// it runs again.
	ResendFree ResendClass = iota
	// ResendRecovered: a journaled change its plugin recovers (Recover)
	// before anything runs again.
	ResendRecovered
	// ResendDeduplicated: its plugin or provider applies the same call once
	// (it declares idempotency), so sending it again is harmless.
	ResendDeduplicated
	// ResendUnsafe: it may have acted and nothing confirms it; only a
	// person's {"retry": true} sends it again.
	ResendUnsafe
)

// ResendOf classes a capability by its description: effect class, recovery
// and idempotency, never its name. An unknown description is unsafe.
func ResendOf(def *sdk.Definition) ResendClass {
	switch {
	case def == nil:
		return ResendUnsafe
	case (def.Effect == sdk.EffectNone || def.Effect == sdk.EffectRead) && !chargesCall(def):
		return ResendFree
	case def.Recovers:
		return ResendRecovered
	case def.Idempotent:
		return ResendDeduplicated
	}
	return ResendUnsafe
}

// chargesCall reports whether a call of def may be charged for: a known price
// above zero, or an unknown one (which is never free).
func chargesCall(def *sdk.Definition) bool {
	return def.Cost != nil && (def.Cost.USDMicro == nil || *def.Cost.USDMicro > 0)
}

// claimRecord is EventCallClaimed's data.
type claimRecord struct {
	Address    string `json:"address"`
	StepID     string `json:"step_id"`
	Capability string `json:"capability"`
	Effect     string `json:"effect"`
	Attempt    int    `json:"attempt"`
	// Answer is, for an attempt its plugin answered effect_unconfirmed,
	// what the plugin said.
	Answer string `json:"answer,omitempty"`
}

// Claims are the calls that may act a run sent, by address, read from the
// run's record at the first that needs them. The zero value is ready.
type Claims struct {
	mu     sync.Mutex
	byAddr map[string]*claimRecord
}

// at is the run's recorded claim at local (the latest attempt of each
// address), read once per drive: a run this call created holds none.
func (cs *Claims) at(ctx context.Context, run *Run, local string) (*claimRecord, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.byAddr == nil {
		cs.byAddr = map[string]*claimRecord{}
		if !run.Fresh {
			events, err := run.Journal.Events(durable(ctx), run.ID, 0)
			if err != nil {
				cs.byAddr = nil
				return nil, err
			}
			for _, ev := range events {
				if ev.Type != EventCallClaimed && ev.Type != EventCallUnclaimed {
					continue
				}
				var c claimRecord
				if json.Unmarshal(ev.Data, &c) != nil {
					continue
				}
				if ev.Type == EventCallClaimed {
					cs.byAddr[c.Address] = &c
				} else if prior := cs.byAddr[c.Address]; prior != nil && prior.Attempt == c.Attempt {
					delete(cs.byAddr, c.Address)
				}
			}
		}
	}
	return cs.byAddr[local], nil
}

// Claim decides whether a call of capability (described by def) that may
// act goes out (one of ResendUnsafe, or of ResendDeduplicated), and records
// an unsafe one before it does (the engine's hook
// call_claimed follows a claim). It answers the attempt the
// call is sent as, or a failure and status that end the unit without
// sending: a wait at the call's retry (Unconfirmed), or retry_declined.
func (cs *Claims) Claim(ctx context.Context, run *Run, step *pkg.Step, local, capability string, def *sdk.Definition) (int, *contract.ErrorBody, contract.StepStatus) {
	prior, err := cs.at(ctx, run, local)
	if err != nil {
		return 0, contract.BodyOf(err), contract.StepFailed
	}
	if prior == nil && ResendOf(def) == ResendDeduplicated {
		// Its plugin applies the same call once: it is sent again as it
		// was, unclaimed. Only an earlier send answered effect_unconfirmed
		// (Answered) leaves a claim that decides it as below.
		return 1, nil, ""
	}
	attempt := 1
	var decided *bool
	if prior != nil {
		dec := run.Decisions[local+"/retry"]
		if dec == nil || dec.Used {
			return 0, unconfirmed(run, step, local, prior), Unconfirmed
		}
		var v struct {
			Retry *bool `json:"retry"`
		}
		if err := json.Unmarshal(dec.Value, &v); err != nil || v.Retry == nil {
			return 0, &contract.ErrorBody{Code: errcode.ResumeEntryInvalid, Message: local + "/retry takes value {\"retry\": true} or {\"retry\": false}"}, contract.StepFailed
		}
		decided, attempt = v.Retry, prior.Attempt+1
	}
	if decided != nil && !*decided {
		if err := run.Journal.Asks().UseDecision(durable(ctx), run.ID, local+"/retry", nil); err != nil {
			return 0, contract.BodyOf(err), contract.StepFailed
		}
		return 0, &contract.ErrorBody{Code: errcode.RetryDeclined, Message: fmt.Sprintf("step %s: a person declined to run %s again; whatever its earlier attempt did stands", step.ID, capability)}, contract.StepFailed
	}
	c := &claimRecord{Address: local, StepID: step.ID, Capability: capability, Effect: "unknown", Attempt: attempt}
	if def != nil {
		c.Effect = def.Effect
	}
	// The claim is recorded before a yes is marked used: a driver killed
	// between the two finds the yes unused and the new attempt unsent.
	if err := run.Journal.AppendEvent(durable(ctx), run.ID, "steps", EventCallClaimed, c); err != nil {
		return 0, contract.BodyOf(err), contract.StepFailed
	}
	cs.mu.Lock()
	cs.byAddr[local] = c
	cs.mu.Unlock()
	if decided != nil {
		if err := run.Journal.Asks().UseDecision(durable(ctx), run.ID, local+"/retry", nil); err != nil {
			return 0, contract.BodyOf(err), contract.StepFailed
		}
	}
	return attempt, nil, ""
}

// answeredUnconfirmed settles a call its plugin answered failed with
// effect_unconfirmed: the plugin cannot tell whether an earlier send of the
// same call acted (a process start whose supervisor never confirmed it,
// say). Sending it again under the same call would be answered the same,
// and under a new one might act twice, so the unit waits at its retry, its
// attempt claimed so that a person's decision is applied to it.
func (cs *Claims) answeredUnconfirmed(ctx context.Context, run *Run, step *pkg.Step, local, capability string, def *sdk.Definition, attempt int, answer string) (*contract.ErrorBody, contract.StepStatus) {
	prior, err := cs.at(ctx, run, local)
	if err != nil {
		return contract.BodyOf(err), contract.StepFailed
	}
	c := prior
	if c == nil || c.Attempt != attempt || c.Answer != answer {
		c = &claimRecord{Address: local, StepID: step.ID, Capability: capability, Effect: "unknown", Attempt: attempt, Answer: answer}
		if def != nil {
			c.Effect = def.Effect
		}
		if err := run.Journal.AppendEvent(durable(ctx), run.ID, "steps", EventCallClaimed, c); err != nil {
			return contract.BodyOf(err), contract.StepFailed
		}
		cs.mu.Lock()
		cs.byAddr[local] = c
		cs.mu.Unlock()
	}
	return unconfirmed(run, step, local, c), Unconfirmed
}

// unconfirmed is the failure a unit whose claimed attempt nothing settles
// carries to its wait; its Detail is the retry request's payload.
func unconfirmed(run *Run, step *pkg.Step, local string, prior *claimRecord) *contract.ErrorBody {
	why := fmt.Sprintf("step %s: attempt %d of %s (effect %s) was sent and no outcome was recorded (its driver was killed or stopped while it ran), so whether it acted is unknown; resending is not safe, since %s declares no recovery and no idempotency; nothing was sent again",
		step.ID, prior.Attempt, prior.Capability, prior.Effect, prior.Capability)
	if prior.Answer != "" {
		why = fmt.Sprintf("step %s: attempt %d of %s (effect %s) was answered %s: %s; whether it acted is unknown, and sending it again may act twice, so nothing was sent again",
			step.ID, prior.Attempt, prior.Capability, prior.Effect, errcode.EffectUnconfirmed, prior.Answer)
	}
	return &contract.ErrorBody{Code: errcode.EffectUnconfirmed, Message: why, Detail: map[string]any{
		"id":          run.Tree.Address(local + "/retry"),
		"gate":        runstate.GateRetry,
		"capability":  prior.Capability,
		"effect":      prior.Effect,
		"attempts":    prior.Attempt,
		"resend_safe": false,
		"why":         why,
		"decide":      `{"retry": true} runs it again (saying the earlier attempt did not take effect, or that it may take effect twice); {"retry": false} leaves it failed with retry_declined`,
	}}
}

// neverSent are the host's failures that come before a call leaves for
// its plugin: nothing was started, checked or found to send it to.
var neverSent = map[errcode.Code]bool{
	errcode.PluginNotFound:            true,
	errcode.PluginUnpinned:            true,
	errcode.PluginChecksumMismatch:    true,
	errcode.PluginLockInvalid:         true,
	errcode.PluginProtocolUnsupported: true,
	errcode.PluginStartFailed:         true,
	// A start a stop cut short (the host answers interrupted only then).
	errcode.Interrupted:            true,
	errcode.CapabilityNotFound:     true,
	errcode.PluginDescribeMismatch: true,
	errcode.PluginDescribeInvalid:  true,
}

// Answered takes a call's answer (res, or the host's err) as the claims
// see it. A claimed call's claim is withdrawn when the call provably never
// acted: err is a host failure before the call left, or res a refusal (the
// call was not carried out). A call whose plugin answered failed with
// effect_unconfirmed, when decide holds (a connector's custody decides its
// own calls), waits at its retry: Answered returns that wait's failure and
// status, for the caller to return once it has settled the call's charge.
func (cs *Claims) Answered(ctx context.Context, run *Run, step *pkg.Step, local, capability string, def *sdk.Definition, attempt int, claimed, decide bool, res *sdk.Result, err error) (*contract.ErrorBody, contract.StepStatus, error) {
	if claimed {
		if uerr := cs.unclaim(ctx, run, step, local, attempt, res, err); uerr != nil {
			return nil, "", uerr
		}
	}
	if decide && err == nil && res != nil && res.Status == sdk.StatusFailed && res.Code == errcode.EffectUnconfirmed {
		failure, status := cs.answeredUnconfirmed(ctx, run, step, local, capability, def, attempt, res.Message)
		return failure, status, nil
	}
	return nil, "", nil
}

func (cs *Claims) unclaim(ctx context.Context, run *Run, step *pkg.Step, local string, attempt int, res *sdk.Result, err error) error {
	var he *host.Error
	if !(errors.As(err, &he) && neverSent[he.Code]) && !(err == nil && res != nil && res.Status == sdk.StatusRefused) {
		return nil
	}
	c := &claimRecord{Address: local, StepID: step.ID, Attempt: attempt}
	if err := run.Journal.AppendEvent(durable(ctx), run.ID, "steps", EventCallUnclaimed, c); err != nil {
		return err
	}
	cs.mu.Lock()
	if prior := cs.byAddr[local]; prior != nil && prior.Attempt == attempt {
		delete(cs.byAddr, local)
	}
	cs.mu.Unlock()
	return nil
}
