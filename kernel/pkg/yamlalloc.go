package pkg

// A document's nodes, entries and items are carved from blocks the parser
// allocates as it goes, so parsing costs a few dozen allocations instead of
// one or more per value (docs/decisions.md). A block lives as long as any
// node in it; a tree is built and dropped as a whole, so nothing is kept
// that would not have been.

const (
	firstBlock = 16   // a SKILL.md front matter needs no more
	maxBlock   = 1024 // a 200-step run.yaml takes a few of these
)

func nextBlockSize(prev, need int) int {
	return max(need, min(max(2*prev, firstBlock), maxBlock))
}

func (p *yamlParser) newNode(kind nodeKind, pos Position, value any) *node {
	if len(p.nodeBlock) == cap(p.nodeBlock) {
		p.nodeBlock = make([]node, 0, nextBlockSize(cap(p.nodeBlock), 1))
	}
	p.nodeBlock = append(p.nodeBlock, node{kind: kind, pos: pos, value: value})
	return &p.nodeBlock[len(p.nodeBlock)-1]
}

// keySet tracks the keys of the mapping being read, whose entries sit on
// the parser's entry stack from base up.
type keySet struct {
	base  int
	index map[string]int // built once a mapping is large enough to need it
}

func (p *yamlParser) openMapping() keySet { return keySet{base: len(p.entryStack)} }

func (p *yamlParser) addEntry(e entry) { p.entryStack = append(p.entryStack, e) }

// find returns the entry already holding key, or nil.
func (p *yamlParser) find(ks *keySet, key string) *entry {
	entries := p.entryStack[ks.base:]
	if ks.index == nil && len(entries) > 16 {
		ks.index = make(map[string]int, 2*len(entries))
		for i, e := range entries {
			if _, dup := ks.index[e.key]; !dup {
				ks.index[e.key] = i
			}
		}
	}
	if ks.index != nil {
		i, ok := ks.index[key]
		if !ok {
			ks.index[key] = len(entries) // the entry the caller adds next
			return nil
		}
		return &entries[i]
	}
	for i := range entries {
		if entries[i].key == key {
			return &entries[i]
		}
	}
	return nil
}

// closeMapping moves the mapping's entries off the stack into a block.
func (p *yamlParser) closeMapping(ks keySet) []entry {
	n := len(p.entryStack) - ks.base
	if n == 0 {
		return nil
	}
	if cap(p.entryBlock)-len(p.entryBlock) < n {
		p.entryBlock = make([]entry, 0, nextBlockSize(cap(p.entryBlock), n))
	}
	start := len(p.entryBlock)
	p.entryBlock = append(p.entryBlock, p.entryStack[ks.base:]...)
	p.entryStack = p.entryStack[:ks.base]
	return p.entryBlock[start : start+n : start+n]
}

func (p *yamlParser) openSequence() int { return len(p.itemStack) }

func (p *yamlParser) addItem(n *node) { p.itemStack = append(p.itemStack, n) }

// closeSequence moves the sequence's items off the stack into a block.
func (p *yamlParser) closeSequence(base int) []*node {
	n := len(p.itemStack) - base
	if n == 0 {
		return nil
	}
	if cap(p.itemBlock)-len(p.itemBlock) < n {
		p.itemBlock = make([]*node, 0, nextBlockSize(cap(p.itemBlock), n))
	}
	start := len(p.itemBlock)
	p.itemBlock = append(p.itemBlock, p.itemStack[base:]...)
	p.itemStack = p.itemStack[:base]
	return p.itemBlock[start : start+n : start+n]
}
