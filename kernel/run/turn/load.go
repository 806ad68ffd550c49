package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/run/skillctx"
	"github.com/runxhq/runx/sdk/errcode"
)

// Load is the call a turn whose step lists calls.load makes to load a
// package: {"skill": "<publisher>/<name>[@version]"} (or runx/<name>, a
// core skill). A load reads the package the project holds into the turn:
// its methods with their descriptions and its SKILL.md as a context
// skill. It grants nothing: calling a method still needs calls.skills.
const Load = "load"

// loadKind is a load's kind on its receipt.
const loadKind pkg.StepKind = "load"

// EventLoad records a load in the run's calls stream: the package it
// bound, {skill, package_digest}, and whether it completed, waits on the
// person's trust or was declined.
const EventLoad = "call.load"

// Loaded is a completed load's output.
type Loaded struct {
	Skill         string                `json:"skill"`
	PackageDigest string                `json:"package_digest"`
	Registry      *pkg.RegistryIdentity `json:"registry,omitempty"`
	Description   string                `json:"description"`
	Methods       []LoadedMethod        `json:"methods"`
	Context       skillctx.Skill        `json:"context"`
}

// LoadedMethod is one method a load lists, by its description.
type LoadedMethod struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// loadRef reads a load's input and holds it to its step's calls.load:
// load_input_invalid for another input, load_not_allowed for a package
// no rule names. Checked before the call takes an index.
func loadRef(step *pkg.Step, input json.RawMessage) (string, error) {
	var in struct {
		Skill string `json:"skill"`
	}
	dec := json.NewDecoder(strings.NewReader(string(input)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || in.Skill == "" {
		return "", contract.Errorf(errcode.LoadInputInvalid, "load takes {\"skill\": \"<publisher>/<name>[@version]\"}")
	}
	ident, version, versioned := strings.Cut(in.Skill, "@")
	publisher, name, _ := strings.Cut(ident, "/")
	if !loadName(publisher) || !loadName(name) || versioned && (publisher == "runx" || version == "") {
		return "", contract.Errorf(errcode.LoadInputInvalid, "load's skill %q is not <publisher>/<name>[@version] or runx/<name>", in.Skill)
	}
	for _, rule := range step.Agent.Calls.Load {
		rp, rn, _ := strings.Cut(rule, "/")
		if (rp == "*" || rp == publisher) && (rn == "*" || rn == name) {
			return in.Skill, nil
		}
	}
	return "", contract.Errorf(errcode.LoadNotAllowed, "turn %s may load only what its calls.load names (%s), not %s", step.ID, strings.Join(step.Agent.Calls.Load, ", "), in.Skill)
}

// load carries out a claimed load: the package bound under the run's
// authority, completed at once when the person already trusts it (a core
// skill, the project's own, or a registry package whose tier is
// first_party or verified), else waiting on the person's trust at
// <turn>/<n>; made again once the person decided, it completes or is
// declined.
func load(ctx context.Context, e Engine, t *Open, c Claimed, ref string) (*CallResult, error) {
	refuse := func(body *contract.ErrorBody) (*CallResult, error) {
		return e.SettleCall(ctx, t, c, loadKind, contract.StepRefused, nil, body)
	}
	lp, refusal, err := e.BindLoad(ctx, t, ref)
	if err != nil || refusal != nil {
		if err != nil {
			return nil, err
		}
		return refuse(refusal)
	}
	sk, err := skillctx.Of(t.Step.ID, ref, lp)
	if err != nil {
		return refuse(contract.BodyOf(err))
	}
	out := Loaded{Skill: ref, PackageDigest: lp.Digest, Registry: lp.Registry, Description: lp.Description, Context: sk}
	if lp.Registry != nil {
		out.Skill = lp.Registry.Ref()
	}
	for _, m := range lp.Methods {
		out.Methods = append(out.Methods, LoadedMethod{Name: m.Name, Description: m.Description})
	}
	event := map[string]any{"call_id": c.Req.CallID, "skill": out.Skill, "package_digest": out.PackageDigest}
	if r := lp.Registry; r != nil && r.TrustTier != string(registry.TierFirstParty) && r.TrustTier != string(registry.TierVerified) {
		res, err := awaitTrust(ctx, e, t, c, out)
		if err != nil || res.Status == contract.CallPending && c.Again {
			return res, err
		}
		if res.Status == contract.CallPending {
			return res, loadEvent(ctx, e, t, res, event, "waiting", nil)
		}
		if res.Error != nil { // declined
			return res, loadEvent(ctx, e, t, res, event, "declined", nil)
		}
	}
	res, err := e.SettleCall(ctx, t, c, loadKind, contract.StepSuccess, out, nil)
	return res, loadEvent(ctx, e, t, res, event, "completed", err)
}

// awaitTrust asks the person to trust a package a turn loads, or reads
// their decision once the load is made again: pending while none is,
// declined (load_declined) when they refused, nil error and a result
// with no error when they trusted it, for the caller to complete.
func awaitTrust(ctx context.Context, e Engine, t *Open, c Claimed, out Loaded) (*CallResult, error) {
	if !c.Again {
		reason := fmt.Sprintf("Turn %s loads %s (%s, trust tier %s, published by %s). Trust it for this turn?", t.Address, out.Skill, out.PackageDigest, out.Registry.TrustTier, out.Registry.Publisher)
		return e.Ask(ctx, t, c, Asked{Kind: contract.RequestApproval, Floor: true, Payload: map[string]any{"step_id": t.Step.ID, "gate": Load,
			"reason": reason, "skill": out.Skill, "package_digest": out.PackageDigest, "trust_tier": out.Registry.TrustTier}})
	}
	var asked *CallRecord
	for i := range t.Calls {
		if t.Calls[i].Index == c.Index {
			asked = &t.Calls[i]
		}
	}
	if asked == nil {
		return nil, contract.Errorf(errcode.JournalRecordInvalid, "load %s/%d is made again, but the turn records no load waiting there", t.Address, c.Index)
	}
	ds, err := e.Journal().Asks().Decisions(context.WithoutCancel(ctx), t.RunID)
	if err != nil {
		return nil, err
	}
	p := Pending{Address: t.Local + "/" + fmt.Sprint(c.Index), Index: c.Index, CallID: asked.CallID, Tool: Load, InputDigest: asked.InputDigest, RequestDigest: asked.RequestDigest, Floor: true}
	d := ds[p.Address]
	if d == nil || d.RequestDigest != p.RequestDigest {
		return e.Collect(ctx, t, p) // still waiting on the person
	}
	var v struct {
		Approved bool   `json:"approved"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal(d.Value, &v); err != nil || v.Approved {
		return &CallResult{}, err
	}
	return e.SettleCall(ctx, t, c, loadKind, contract.StepFailed, nil, &contract.ErrorBody{Code: errcode.LoadDeclined,
		Message: fmt.Sprintf("the person did not trust %s for turn %s: %s", out.Skill, t.Address, v.Reason)})
}

// loadEvent records what became of a load in the run's calls stream.
func loadEvent(ctx context.Context, e Engine, t *Open, res *CallResult, event map[string]any, status string, err error) error {
	if err != nil || res == nil {
		return err
	}
	event["address"], event["status"] = res.Address, status
	return e.Journal().AppendEvent(context.WithoutCancel(ctx), t.RunID, "calls", EventLoad, event)
}

// loadName is a publisher or package name a load names: lowercase letters,
// digits and inner hyphens, as a registry serves them.
func loadName(s string) bool {
	return s != "" && len(s) <= 64 && s[0] != '-' && s[len(s)-1] != '-' && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
}
