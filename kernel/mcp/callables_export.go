package mcp

import (
	"context"

	"github.com/runxhq/runx/kernel/run"
)

// TurnCallables are the calls an open turn may make, each with its input
// schema, exactly as turn_status lists them: the one owner a managed agent's
// tool list reads too.
func TurnCallables(ctx context.Context, k *run.Kernel, t *run.OpenTurn) []map[string]any {
	return (&Server{k: k}).callables(ctx, t)
}
