package reuse

import (
	"github.com/runxhq/runx/kernel/pkg"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Class is how a step of an earlier run stands when its result is
// offered again.
type Class int

const (
	// Transform only transforms the evidence it was given (a module,
	// a capability declaring no effect): it keeps its original stamp.
	Transform Class = iota
	// LocalRead reads mutable local state (a native tool such as
	// run.read, a capability declaring effect read): it is made again and
	// compared.
	LocalRead
	// ProviderRead reads through a provider: it keeps the age bound
	// only on matching confirmed identity evidence.
	ProviderRead
	// Unknown has no description to judge it by.
	Unknown
	// Ineligible changes something, waits on someone or runs a
	// process or a child: the call recomputes.
	Ineligible
)

// Classify is the pure rule: it reads only the step and the
// capability's description (native says the kernel itself serves it).
func Classify(s *pkg.Step, native bool, def *sdk.Definition) (Class, string) {
	if s.ForEach != "" {
		return Ineligible, "step " + s.ID + " fans out"
	}
	switch s.Kind {
	case pkg.KindModule:
		return Transform, ""
	case pkg.KindTool:
		if native {
			return LocalRead, ""
		}
		if def == nil {
			return Unknown, "step " + s.ID + "'s capability " + s.Tool.Capability + " is not described by any installed plugin"
		}
		switch {
		case def.HasRole(sdk.RoleDataOperation):
			return ProviderRead, ""
		case def.Effect == sdk.EffectNone:
			return Transform, ""
		case def.Effect == sdk.EffectRead:
			return LocalRead, ""
		}
		return Ineligible, "step " + s.ID + " calls " + s.Tool.Capability + ", whose effect is " + def.Effect
	case pkg.KindOperation:
		if def == nil {
			return Unknown, "step " + s.ID + "'s operation " + s.Operation.Ref + " is not described by any installed connector"
		}
		if def.Effect == sdk.EffectNone || def.Effect == sdk.EffectRead {
			return ProviderRead, ""
		}
		return Ineligible, "step " + s.ID + " is operation " + s.Operation.Ref + ", whose effect is " + def.Effect
	}
	return Ineligible, "step " + s.ID + " is a " + string(s.Kind) + " step, which is never reused"
}

// Verdict is whether a candidate's every step may stand again: a Reason
// (and its Message) when one may not, and the native reads of mutable
// local state made again that matched.
type Verdict struct {
	Reason, Message string
	Verified        []string
}
