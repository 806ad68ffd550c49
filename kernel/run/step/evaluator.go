package step

import (
	"github.com/runxhq/runx/kernel/packet"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
)

// producer names who produced a unit's packet outputs, for packet.Stamp
// (a verdict's evaluator): the package, method and run the unit belongs
// to; for a skill call, the child run whose result the unit returns,
// which named every verdict its own steps returned, so a verdict passed up
// a workflow keeps naming the step that made it.
func (r *Run) producer(step *pkg.Step, body *receipt.Body) packet.Producer {
	if step.Kind == pkg.KindSkill {
		for _, c := range body.Children {
			if child, _, err := r.Sealer.Store.Get(c.ReceiptID); err == nil && child.Body.Kind == receipt.KindRun {
				return packet.Producer{Package: child.Body.SkillName, Method: child.Body.Method, Run: child.Body.RunID}
			}
		}
	}
	return packet.Producer{Package: body.SkillName, Method: body.Method, Run: body.RunID}
}
