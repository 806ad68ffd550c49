package connector

import (
	"testing"

	"github.com/runxhq/runx/kernel/pkg"
)

// The provider key binds the caller's key to the connector, operation and
// rendered target: another target or caller key is another key; another
// payload under the same target is the same key.
func TestProviderKey(t *testing.T) {
	c := &pkg.Connector{ID: "forge"}
	op := &pkg.ConnectorOperation{Name: "post.create", Target: "boards/{board}", Inputs: []*pkg.InputSpec{{Name: "board", Type: "string"}, {Name: "title", Type: "string"}}}
	mo := &ManifestOp{Connector: c, Op: op}
	k := ProviderKey(mo, map[string]any{"board": "general", "title": "a"}, "k1")
	if k != ProviderKey(mo, map[string]any{"board": "general", "title": "b"}, "k1") {
		t.Error("a payload revision must reach the provider under the same key")
	}
	if k == ProviderKey(mo, map[string]any{"board": "news", "title": "a"}, "k1") {
		t.Error("another target must be another key")
	}
	if k == ProviderKey(mo, map[string]any{"board": "general", "title": "a"}, "k2") {
		t.Error("another caller key must be another key")
	}
	op2 := &pkg.ConnectorOperation{Name: "post.edit", Target: op.Target, Inputs: op.Inputs}
	if k == ProviderKey(&ManifestOp{Connector: c, Op: op2}, map[string]any{"board": "general"}, "k1") {
		t.Error("another operation must be another key")
	}
}
