package pkg

import (
	"github.com/goccy/go-yaml/token"

	"github.com/runxhq/runx/sdk/errcode"
)

// checkShape bounds what the parser would build from tokens before it
// builds any of it: nesting deeper than maxYAMLDepth, and block mappings of
// more than maxYAMLMappingKeys keys, are refused here. goccy's parser costs
// quadratic memory in both (a 200 KB file of "[" took 15-20 GB), while its
// tokens are linear, so the walk reads the parser's own tokens: what nests
// is decided by the same scanner the parser reads, never by a second
// reading of the text that could disagree with it (a quote it takes for a
// string and the parser does not).
//
// Nesting counts collections: a flow collection ("[", "{") opens one where
// it stands; a block one is opened by a sequence entry ("-"), an explicit
// key ("?") or a key's colon at a column deeper than the collection it
// sits in, and closes when a later entry stands at a shallower column. A
// sequence that is a mapping's value may stand at its key's own column. A
// collection is refused when more than maxYAMLDepth collections hold it,
// where the conversion would refuse it too, with the same position.
func (c converter) checkShape(tokens token.Tokens) error {
	type level struct {
		col  int
		seq  bool
		keys int
	}
	var block []level
	flow := 0
	line, segCol := 0, 0 // where the current key or value began on its line
	deeper := func(tk *token.Token) error {
		return refuseAt(c.file, c.tokenPos(tk), errcode.RunxYAMLInvalid, "values nest deeper than %d levels", maxYAMLDepth)
	}
	var open func(col int, seq bool, tk *token.Token) error
	open = func(col int, seq bool, tk *token.Token) error {
		for len(block) > 0 && block[len(block)-1].col > col {
			block = block[:len(block)-1]
		}
		if n := len(block); n > 0 && block[n-1].col == col {
			top := &block[n-1]
			if top.seq == seq {
				if !seq {
					top.keys++
					if top.keys > maxYAMLMappingKeys {
						return refuseAt(c.file, c.tokenPos(tk), errcode.RunxYAMLInvalid,
							"a mapping holds more than %d keys, the ceiling on keys in one block mapping; split it or write it as a flow mapping", maxYAMLMappingKeys)
					}
				}
				return nil
			}
			if top.seq {
				// A key at a sequence's column ends the sequence that was
				// the value of an earlier key there.
				block = block[:n-1]
				return open(col, seq, tk)
			}
		}
		if len(block)+flow > maxYAMLDepth {
			return deeper(tk)
		}
		block = append(block, level{col: col, seq: seq, keys: 1})
		return nil
	}
	for _, tk := range tokens {
		if tk.Type == token.CommentType || tk.Position == nil {
			continue
		}
		col := tk.Position.Column
		if tk.Position.Line != line {
			line, segCol = tk.Position.Line, col
		} else if segCol < 0 {
			segCol = col
		}
		var err error
		switch tk.Type {
		case token.DocumentHeaderType, token.DocumentEndType:
			block, flow = block[:0], 0
		case token.SequenceStartType, token.MappingStartType:
			if len(block)+flow > maxYAMLDepth {
				return deeper(tk)
			}
			flow++
		case token.SequenceEndType, token.MappingEndType:
			if flow > 0 {
				flow--
			}
		case token.SequenceEntryType:
			if flow == 0 {
				err = open(col, true, tk)
			}
			segCol = -1
		case token.MappingKeyType:
			if flow == 0 {
				err = open(col, false, tk)
			}
			segCol = -1
		case token.MappingValueType:
			if flow == 0 {
				err = open(segCol, false, tk)
			}
			segCol = -1
		}
		if err != nil {
			return err
		}
	}
	return nil
}
