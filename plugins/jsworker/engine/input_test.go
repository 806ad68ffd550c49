package engine

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestInputIntegersMustBeSafe(t *testing.T) {
	p := compileModule(t, `export default function (input) { return { v: input.v, t: typeof input.v, neg0: Object.is(input.v, -0) } }`)
	for in, want := range map[string]string{
		`{"v":9007199254740991}`:   `{"v":9007199254740991,"t":"number","neg0":false}`,
		`{"v":-9007199254740991}`:  `{"v":-9007199254740991,"t":"number","neg0":false}`,
		`{"v":1.5e300}`:            `{"v":1.5e+300,"t":"number","neg0":false}`,
		`{"v":9007199254740993.0}`: `{"v":9007199254740992,"t":"number","neg0":false}`, // a float keeps IEEE 754 semantics
		`{"v":1e400}`:              `{"v":null,"t":"number","neg0":false}`,             // Infinity, as JSON.parse gives
		`{"v":-0}`:                 `{"v":0,"t":"number","neg0":true}`,
		`{"v":"9007199254740993"}`: `{"v":"9007199254740993","t":"string","neg0":false}`,
	} {
		res, err := call(t, p, in, quick)
		wantOutput(t, res, err, want)
	}
	for _, in := range []string{
		`{"v":9007199254740992}`, `{"v":-9007199254740992}`, `{"v":18446744073709551616}`,
		`{"nested":{"list":[1,2,12345678901234567890]}}`,
	} {
		_, err := call(t, p, in, quick)
		if e := wantCode(t, err, errcode.ModuleInputUnsafeInteger); !strings.Contains(e.Message, "string") {
			t.Errorf("%s: the refusal does not say to send a string: %s", in, e.Message)
		}
	}
}

func TestInputUnsafeIntegerNamesItsPath(t *testing.T) {
	p := compileModule(t, `export default () => ({})`)
	_, err := call(t, p, `{"order":{"lines":[{"qty":1},{"id":9007199254740993}]}}`, quick)
	if e := wantCode(t, err, errcode.ModuleInputUnsafeInteger); !strings.Contains(e.Message, "$.order.lines[1].id") {
		t.Fatalf("message %q does not locate the integer", e.Message)
	}
}

func TestInputMustBeAJSONObject(t *testing.T) {
	p := compileModule(t, `export default () => ({})`)
	for _, in := range []string{``, `[]`, `"s"`, `1`, `null`, `{"a":}`, `{"a":1} {}`, `{"a":1`, `{} x`} {
		_, err := call(t, p, in, quick)
		wantCode(t, err, errcode.ModuleInputInvalid)
	}
	deep := strings.Repeat(`{"a":`, MaxNestingDepth+1) + "1" + strings.Repeat("}", MaxNestingDepth+1)
	_, err := call(t, p, deep, quick)
	wantCode(t, err, errcode.ModuleInputInvalid)
}

func TestInputKeepsJSONParseSemantics(t *testing.T) {
	p := compileModule(t, `export default function (input) {
		return { own: Object.hasOwn(input, "__proto__"), proto: Object.getPrototypeOf(input) === Object.prototype,
			dup: input.dup, keys: Object.keys(input), arr: Array.isArray(input.list), u: input.u }
	}`)
	res, err := call(t, p, `{"__proto__":{"x":1},"dup":1,"dup":2,"list":[true,null,"é"],"u":"\u2028\ud83d\ude00"}`, quick)
	wantOutput(t, res, err, `{"own":true,"proto":true,"dup":2,"keys":["__proto__","dup","list","u"],"arr":true,"u":"`+"\u2028\U0001F600"+`"}`)
}
