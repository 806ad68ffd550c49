package receipt

import (
	"context"
	"testing"
)

// TestTreeOfFindsTheRoot: a child receipt belongs to the tree of the root
// that commits it, at any depth; a root is its own; a receipt no root
// commits is its own root.
func TestTreeOfFindsTheRoot(t *testing.T) {
	st, s := newTestStore(t), newTestSigner(t, "tree")
	leaf := sealAndPut(t, st, s, stepBody("run_child", "leaf"))
	child := sealAndPut(t, st, s, runBody("run_child", leaf.ref))
	step := sealAndPut(t, st, s, stepBody("run_root", "call", child.ref))
	root := sealAndPutRoot(t, st, s, runBody("run_root", step.ref))
	other := sealAndPutRoot(t, st, s, runBody("run_other"))
	orphan := sealAndPut(t, st, s, stepBody("run_orphan", "alone"))
	for name, c := range map[string]struct{ id, want string }{
		"leaf two runs down": {leaf.r.ID, root.r.ID},
		"child run":          {child.r.ID, root.r.ID},
		"step":               {step.r.ID, root.r.ID},
		"root":               {root.r.ID, root.r.ID},
		"another root":       {other.r.ID, other.r.ID},
		"orphan":             {orphan.r.ID, orphan.r.ID},
	} {
		got, err := st.TreeOf(context.Background(), c.id)
		if err != nil || got != c.want {
			t.Errorf("%s: TreeOf = %s, %v; want %s", name, got, err, c.want)
		}
	}
}
