package engine

import (
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"

	"github.com/runxhq/runx/sdk/errcode"
)

// A script request's input is digested, and the kernel digests the same
// request over its RFC 8785 (JCS) form, so the worker must write exactly the
// bytes gowebpki/jcs would. The output encoder does so directly in its
// canonical mode, rather than writing JSON and re-parsing it through
// jcs.Transform, which cost a tenth of a replay: JSON.stringify's string
// escapes are already JCS's, and the two differences are here. A property
// test holds the encoder to jcs.Transform.

// number appends f as JCS writes a number. Integers outside the safe range
// go through the same float64 jcs would parse their text into.
func (e *outputEncoder) number(f float64) *Error {
	text, err := jcs.NumberToJSON(f)
	if err != nil { // NaN and infinities, which value writes as null first
		return refuse(errcode.ModuleOutputInvalid, "%s holds a number JSON cannot carry", e.subject)
	}
	return e.write(text)
}

// sortUTF16 orders object members as JCS does, by their names' UTF-16 code
// units. That is byte order unless a name holds a character past U+D7FF,
// where UTF-8 and UTF-16 disagree about supplementary characters.
func sortUTF16(keys []string) {
	plain := true
	for _, k := range keys {
		for i := 0; i < len(k); i++ {
			if k[i] >= 0xED { // the lead byte of U+D000 and above
				plain = false
				break
			}
		}
	}
	if plain {
		slices.Sort(keys)
		return
	}
	units := make(map[string][]uint16, len(keys))
	for _, k := range keys {
		if utf8.ValidString(k) {
			units[k] = utf16.Encode([]rune(k))
		}
	}
	slices.SortFunc(keys, func(a, b string) int { return slices.Compare(units[a], units[b]) })
}
