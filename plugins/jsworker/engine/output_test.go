package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestOutputFollowsJSONStringify(t *testing.T) {
	cases := map[string]string{
		`{ a: undefined, f() {}, s: Symbol("x"), b: 1 }`:             `{"b":1}`,
		`{ list: [undefined, () => 1, Symbol("x"), NaN, Infinity] }`: `{"list":[null,null,null,null,null]}`,
		`{ d: new Date(0) }`: `{"d":"1970-01-01T00:00:00.000Z"}`,
		`{ w: [new Number(1), new String("s"), new Boolean(false)] }`:   `{"w":[1,"s",false]}`,
		`{ n: -0, f: 0.1 + 0.2, e: 1e21, small: 5e-7, i: 2 ** 53 - 1 }`: `{"n":0,"f":0.30000000000000004,"e":1e+21,"small":5e-7,"i":9007199254740991}`,
		`{ t: { toJSON(key) { return "key:" + key } } }`:                `{"t":"key:t"}`,
		`{ m: new Map([[1, 2]]), set: new Set([1]) }`:                   `{"m":{},"set":{}}`,
		`{ esc: "\"\\\b\f\n\r\t\u0001</script>é😀" }`:                    `{"esc":"\"\\\b\f\n\r\t\u0001</script>é😀"}`,
		`{ sparse: [1, , 3] }`:                                          `{"sparse":[1,null,3]}`,
		`{ 2: "b", 1: "a", z: 1, y: 2 }`:                                `{"1":"a","2":"b","z":1,"y":2}`,
		`Object.assign(Object.create(null), { nullProto: true })`:       `{"nullProto":true}`,
		`{ get computed() { return 42 } }`:                              `{"computed":42}`,
		`{ shared: (() => { const s = { v: 1 }; return [s, s] })() }`:   `{"shared":[{"v":1},{"v":1}]}`,
	}
	for expr, want := range cases {
		p := compileModule(t, `export default function () { return `+expr+` }`)
		res, err := call(t, p, `{}`, quick)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if string(res.Output) != want {
			t.Errorf("%s: output %s, want %s", expr, res.Output, want)
		}
	}
}

func TestOutputNestingIsBounded(t *testing.T) {
	p := compileModule(t, `export default function (input) { let o = {}; for (let i = 0; i < input.n; i++) o = { o }; return o }`)
	if _, err := call(t, p, `{"n":100}`, quick); err != nil {
		t.Fatal(err)
	}
	// The wall-time limit is not under test here: give the deep build the
	// most time a runner may select, so a loaded machine still reaches the
	// nesting check.
	_, err := call(t, p, `{"n":20000}`, MaxTimeout+time.Second, func(c *Call) { c.Timeout = MaxTimeout })
	if e := wantCode(t, err, errcode.ModuleOutputInvalid); !strings.Contains(e.Message, "nests deeper") {
		t.Fatalf("message %q does not explain the refusal", e.Message)
	}
}
