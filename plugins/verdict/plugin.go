package verdict

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/verdict"
)

// Name is the plugin's name; its capability ids are verdict.*.
const Name = "verdict"

// Version is the plugin's own version; the kernel records it in receipts.
const Version = "0.1.0"

// Capability ids.
const (
	CapabilityCriteria = "verdict.criteria"
	CapabilityDecide   = "verdict.decide"
)

// maxInputBytes bounds one call's input: a set and a verdict of at most
// verdict.MaxChecks checks with bounded texts fit well under it.
const maxInputBytes = 4 << 20

// Plugin serves the verdict tools. It holds no state.
type Plugin struct{}

// New returns the verdict plugin.
func New() *Plugin { return &Plugin{} }

const criteriaInputSchema = `{"type":"object","additionalProperties":false,"required":["checks"],"properties":{` +
	`"checks":{"type":"array","minItems":1,"maxItems":256,"description":"The checks of the set; their order does not matter.",` +
	`"items":{"type":"object","additionalProperties":false,"required":["id"],"properties":{` +
	`"id":{"type":"string","pattern":"^[a-z0-9][a-z0-9_.-]{0,63}$"},` +
	`"description":{"type":"string","maxLength":1024},` +
	`"required":{"type":"boolean","description":"Default true: a decision waits on it."}}}}}}`

// The set and the verdict are checked by the plugin, not by the schema, so
// a malformed one is refused with its own code (criteria_invalid,
// verdict_invalid) rather than as input the schema refused.
const decideInputSchema = `{"type":"object","additionalProperties":false,"required":["verdict","subject","criteria"],"properties":{` +
	`"verdict":{"type":"object","description":"The runx.verdict.v1 to decide."},` +
	`"subject":{"type":"string","description":"The digest of the subject the reader expects the verdict to judge."},` +
	`"criteria":{"type":"object","description":"The runx.criteria.v1 set the reader expects it to answer; its revision is recomputed from what it holds."}}}`

// Info describes the verdict tools.
func (*Plugin) Info() plugin.Info {
	def := func(id, summary, in, out string) plugin.Definition {
		return plugin.Definition{
			ID: id, Summary: summary,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
			Effect: plugin.EffectNone, Approval: plugin.ApprovalNone, Idempotent: true,
		}
	}
	return plugin.Info{Name: Name, Version: Version, Capabilities: []plugin.Definition{
		def(CapabilityCriteria, "Make a criteria set (runx.criteria.v1) from its checks; its revision is the digest of what it holds.",
			criteriaInputSchema, verdict.CriteriaJSONSchema),
		def(CapabilityDecide, "Decide a verdict (runx.verdict.v1) for the subject and criteria set the reader expects: not_met, inconclusive or met; a verdict about another subject or set is refused.",
			decideInputSchema, verdict.DecisionJSONSchema),
	}}
}

// Invoke answers one call from its input alone.
func (*Plugin) Invoke(_ context.Context, call *plugin.Call) *plugin.Result {
	if len(call.Input) > maxInputBytes {
		return plugin.Refused(errcode.CapabilityInputInvalid, fmt.Sprintf("%s takes at most %d bytes of input", call.Capability, maxInputBytes))
	}
	switch call.Capability {
	case CapabilityCriteria:
		var in struct {
			Checks []verdict.CheckSpec `json:"checks"`
		}
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return plugin.Refused(errcode.CapabilityInputInvalid, "verdict.criteria takes {checks: [{id, description?, required?}]}")
		}
		c, err := verdict.NewCriteria(in.Checks)
		return answer(c, err)
	case CapabilityDecide:
		var in struct {
			Verdict  json.RawMessage `json:"verdict"`
			Subject  string          `json:"subject"`
			Criteria json.RawMessage `json:"criteria"`
		}
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return plugin.Refused(errcode.CapabilityInputInvalid, "verdict.decide takes {verdict, subject, criteria}")
		}
		c, err := verdict.ParseCriteria(in.Criteria)
		if err != nil {
			return answer(nil, err)
		}
		v, err := verdict.ParseVerdict(in.Verdict)
		if err != nil {
			return answer(nil, err)
		}
		d, err := verdict.Decide(v, in.Subject, c)
		return answer(d, err)
	}
	return plugin.Refused(errcode.CapabilityNotFound, fmt.Sprintf("the verdict plugin serves %s and %s, not %s", CapabilityCriteria, CapabilityDecide, call.Capability))
}

// answer is the call's result: the output, or the typed refusal of a set,
// a verdict or a decision. A refusal carries no output: a refused verdict
// answers nothing.
func answer(out any, err error) *plugin.Result {
	var refusal *verdict.Error
	if errors.As(err, &refusal) {
		return plugin.Refused(refusal.Code, refusal.Message)
	}
	if err != nil {
		return plugin.Failed(errcode.CapabilityOutputInvalid, err.Error())
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return plugin.Failed(errcode.CapabilityOutputInvalid, err.Error())
	}
	return plugin.OK(raw, nil)
}
