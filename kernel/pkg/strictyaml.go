package pkg

import "unicode/utf8"

// maxYAMLDepth bounds nesting so a hostile file cannot make the parse recurse
// without limit; no real profile comes close.
const maxYAMLDepth = 128

// parseStrict parses src as the runx YAML subset and returns the body of its
// one document (nil when the file holds nothing). The subset exists so a file
// means exactly what it shows: no anchors, aliases, merge keys or tags (which
// make one value stand for another), one document, and no duplicate keys
// (which different parsers resolve differently). lineOffset shifts reported
// lines when src is embedded in a larger file (SKILL.md front matter).
func parseStrict(file string, src []byte, lineOffset int) (*node, error) {
	doc, err := parseYAML(file, src, lineOffset)
	if err != nil {
		return nil, err
	}
	return doc.body()
}

// parseYAML parses src, failing only on what is not YAML the subset's
// parser reads; a subset refusal is held in the result until body is called,
// so a caller can peek at a field (minimum_runx) in between.
func parseYAML(file string, src []byte, lineOffset int) (yamlDoc, error) {
	if !utf8.Valid(src) {
		return yamlDoc{}, refuseAt(file, Position{}, CodeYAMLInvalid, "the file is not valid UTF-8")
	}
	p := &yamlParser{file: file, s: string(src), lineOffset: lineOffset}
	return p.parseStream()
}
