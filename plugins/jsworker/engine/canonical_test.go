package engine

import (
	"sync/atomic"
	"testing"

	"github.com/dop251/goja"
	"github.com/gowebpki/jcs"
)

// canonicalValues builds, in JavaScript, values that probe where JCS and
// JSON.stringify part: member order (insertion, numeric-looking names,
// supplementary characters against U+E000..U+FFFF), number forms (exponent
// thresholds, subnormals, -0, integers past 2^53 that goja keeps as int64),
// and escapes. The generator is seeded by Math.random, so a run is fixed.
const canonicalValues = `(function () {
	const names = ["b", "a", "10", "9", "", "é", "\u00ff", "\ue000", "\uffff", "\ud83d\ude00", "\ud800\udc00", "A", "aa", "\u0001", "\"", "\\\\"];
	const numbers = [0, -0, 1, -1, 0.1, 1e21, 1e20, 123456789012345680000, 1e-7, 1e-6, 5e-324, 1.7976931348623157e308,
		2 ** 53, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER + 2, 9007199254740993, -(2 ** 60), 4.35, 0.000001234, 1 / 3];
	const strings = ["", "plain", "\n\t\r\b\f", "\u0000\u001f\u007f", "<&>'", "\u2028\u2029", "é日本😀", "\\\"/"];
	const pick = (a) => a[Math.floor(Math.random() * a.length)];
	const value = (depth) => {
		const r = Math.random();
		if (depth > 3 || r < 0.3) return pick(numbers);
		if (r < 0.5) return pick(strings);
		if (r < 0.55) return pick([true, false, null]);
		if (r < 0.7) return Array.from({ length: Math.floor(Math.random() * 4) }, () => value(depth + 1));
		const o = {};
		for (let i = Math.floor(Math.random() * 6); i > 0; i--) o[pick(names)] = value(depth + 1);
		return o;
	};
	const out = [];
	for (let i = 0; i < 2000; i++) { const o = {}; o[pick(names)] = value(0); o[pick(names)] = value(0); out.push(o); }
	return out;
})()`

func TestCanonicalEncodingIsJCS(t *testing.T) {
	rt := goja.New()
	rt.SetRandSource(seededRandom(42))
	in, err := captureIntrinsics(rt)
	if err != nil {
		t.Fatal(err)
	}
	values, err := rt.RunString(canonicalValues)
	if err != nil {
		t.Fatal(err)
	}
	var halted atomic.Bool
	arr := values.ToObject(rt)
	n := int(arr.Get("length").ToInteger())
	for i := 0; i < n; i++ {
		v := arr.Get(itoa(i))
		got, refusal := encodeRequest(rt, in, v, &halted)
		if refusal != nil {
			t.Fatalf("value %d: %v", i, refusal)
		}
		plain, refusal := encodeOutput(rt, in, v, &halted)
		if refusal != nil {
			t.Fatalf("value %d: %v", i, refusal)
		}
		want, err := jcs.Transform(plain)
		if err != nil {
			t.Fatalf("value %d: jcs refused %s: %v", i, plain, err)
		}
		if string(got) != string(want) {
			t.Fatalf("value %d encodes as\n%s\njcs gives\n%s", i, got, want)
		}
	}
}
