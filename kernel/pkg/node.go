package pkg

import "github.com/runxhq/runx/kernel/pkg/jsonvalue"

// A node is read into the shared value shape of package jsonvalue.

type nodeKind uint8

const (
	scalarNode nodeKind = iota
	mapNode
	seqNode
)

// node is a YAML value that passed the strict subset: plain maps, lists and
// JSON scalars, each with the position it was written at.
type node struct {
	kind    nodeKind
	pos     Position
	value   any // scalarNode: nil, bool, string, int64 or float64
	entries []entry
	items   []*node
}

type entry struct {
	key    string
	keyPos Position
	value  *node
}

func (n *node) isNull() bool { return n == nil || (n.kind == scalarNode && n.value == nil) }

// toValue converts a node to the shared JSON-shaped value.
func (n *node) toValue() any {
	if n == nil {
		return nil
	}
	switch n.kind {
	case mapNode:
		m := make(map[string]any, len(n.entries))
		for _, e := range n.entries {
			m[e.key] = e.value.toValue()
		}
		return m
	case seqNode:
		l := make([]any, len(n.items))
		for i, it := range n.items {
			l[i] = it.toValue()
		}
		return l
	}
	return n.value
}

// describe names a node's shape for messages, never its content.
func (n *node) describe() string {
	if n == nil {
		return "null"
	}
	switch n.kind {
	case mapNode:
		return "a mapping"
	case seqNode:
		return "a list"
	}
	return jsonvalue.Kind(n.value)
}
