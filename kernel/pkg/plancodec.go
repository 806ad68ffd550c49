package pkg

import (
	"encoding/binary"
	"errors"
	"math"
	"unicode/utf8"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
)

// The plan cache stores a document tree in a compact binary form: each node
// is a tag byte, its position (line, column as uvarints), then its content.
// Decoding checks every length against what is left and nests no deeper
// than the reader allows, so even an entry that verified cannot make it
// allocate or recurse without bound.

const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagString
	tagInt
	tagFloat
	tagMap
	tagSeq
)

func encodePlanTree(root *node) []byte {
	var b []byte
	if root == nil {
		return append(b, 0) // no document
	}
	b = append(b, 1)
	return appendNode(b, root)
}

func appendPos(b []byte, p Position) []byte {
	b = binary.AppendUvarint(b, uint64(p.Line))
	return binary.AppendUvarint(b, uint64(p.Column))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendNode(b []byte, n *node) []byte {
	switch n.kind {
	case mapNode:
		b = appendPos(append(b, tagMap), n.pos)
		b = binary.AppendUvarint(b, uint64(len(n.entries)))
		for _, e := range n.entries {
			b = appendPos(appendString(b, e.key), e.keyPos)
			b = appendNode(b, e.value)
		}
		return b
	case seqNode:
		b = appendPos(append(b, tagSeq), n.pos)
		b = binary.AppendUvarint(b, uint64(len(n.items)))
		for _, it := range n.items {
			b = appendNode(b, it)
		}
		return b
	}
	switch v := n.value.(type) {
	case bool:
		tag := tagFalse
		if v {
			tag = tagTrue
		}
		return appendPos(append(b, tag), n.pos)
	case string:
		return appendString(appendPos(append(b, tagString), n.pos), v)
	case int64:
		return binary.AppendVarint(appendPos(append(b, tagInt), n.pos), v)
	case float64:
		return binary.BigEndian.AppendUint64(appendPos(append(b, tagFloat), n.pos), math.Float64bits(v))
	}
	return appendPos(append(b, tagNull), n.pos)
}

var errBadPlanEntry = errors.New("plan cache entry does not decode")

// planReader reads an entry. Strings are cut from one copy of the payload
// and nodes from blocks, so a 200-step plan decodes in a few hundred
// allocations instead of one or more per value.
type planReader struct {
	b     []byte
	text  string // the payload as one string
	nodes []node
}

func decodePlanTree(b []byte) (*node, error) {
	r := &planReader{b: b, text: string(b)}
	present, err := r.byte()
	if err != nil {
		return nil, err
	}
	var root *node
	switch present {
	case 0:
	case 1:
		if root, err = r.node(0); err != nil {
			return nil, err
		}
	default:
		return nil, errBadPlanEntry
	}
	if len(r.b) != 0 {
		return nil, errBadPlanEntry
	}
	return root, nil
}

func (r *planReader) byte() (byte, error) {
	if len(r.b) == 0 {
		return 0, errBadPlanEntry
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c, nil
}

func (r *planReader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		return 0, errBadPlanEntry
	}
	r.b = r.b[n:]
	return v, nil
}

// count reads a length that cannot exceed the bytes left (each element
// takes at least min bytes).
func (r *planReader) count(min int) (int, error) {
	v, err := r.uvarint()
	if err != nil || v > uint64(len(r.b)/min) {
		return 0, errBadPlanEntry
	}
	return int(v), nil
}

func (r *planReader) pos() (Position, error) {
	line, err := r.uvarint()
	if err != nil {
		return Position{}, err
	}
	col, err := r.uvarint()
	if err != nil || line > math.MaxInt32 || col > math.MaxInt32 {
		return Position{}, errBadPlanEntry
	}
	return Position{Line: int(line), Column: int(col)}, nil
}

func (r *planReader) string() (string, error) {
	n, err := r.count(1)
	if err != nil {
		return "", err
	}
	at := len(r.text) - len(r.b)
	s := r.text[at : at+n]
	r.b = r.b[n:]
	if !utf8.ValidString(s) {
		return "", errBadPlanEntry
	}
	return s, nil
}

func (r *planReader) node(depth int) (*node, error) {
	if depth > maxYAMLDepth {
		return nil, errBadPlanEntry
	}
	tag, err := r.byte()
	if err != nil {
		return nil, err
	}
	pos, err := r.pos()
	if err != nil {
		return nil, err
	}
	if len(r.nodes) == cap(r.nodes) {
		r.nodes = make([]node, 0, min(256, 1+len(r.b)/3))
	}
	r.nodes = append(r.nodes, node{kind: scalarNode, pos: pos})
	n := &r.nodes[len(r.nodes)-1]
	switch tag {
	case tagNull:
	case tagFalse, tagTrue:
		n.value = tag == tagTrue
	case tagString:
		if n.value, err = r.string(); err != nil {
			return nil, err
		}
	case tagInt:
		v, k := binary.Varint(r.b)
		if k <= 0 || v > jsonvalue.MaxSafeInteger || v < -jsonvalue.MaxSafeInteger {
			return nil, errBadPlanEntry
		}
		r.b = r.b[k:]
		n.value = v
	case tagFloat:
		if len(r.b) < 8 {
			return nil, errBadPlanEntry
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(r.b))
		r.b = r.b[8:]
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, errBadPlanEntry
		}
		n.value = f
	case tagMap:
		return r.mapping(n, depth)
	case tagSeq:
		count, err := r.count(3) // tag and a two-byte position at least
		if err != nil {
			return nil, err
		}
		n.kind, n.items = seqNode, make([]*node, 0, count)
		for range count {
			it, err := r.node(depth + 1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, it)
		}
	default:
		return nil, errBadPlanEntry
	}
	return n, nil
}

func (r *planReader) mapping(n *node, depth int) (*node, error) {
	count, err := r.count(6) // key length, key position, value tag and position
	if err != nil {
		return nil, err
	}
	n.kind, n.entries = mapNode, make([]entry, 0, count)
	seen := make(map[string]bool, count)
	for range count {
		key, err := r.string()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, errBadPlanEntry // the reader never lets a duplicate through
		}
		seen[key] = true
		keyPos, err := r.pos()
		if err != nil {
			return nil, err
		}
		value, err := r.node(depth + 1)
		if err != nil {
			return nil, err
		}
		n.entries = append(n.entries, entry{key: key, keyPos: keyPos, value: value})
	}
	return n, nil
}
