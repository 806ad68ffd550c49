package engine

import (
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// Conversions a module controls (valueOf, toString, a String object
// receiver, a negative split limit) must not carry a size past a guard.
func TestGuardsSeeThroughConversions(t *testing.T) {
	for _, alloc := range []string{
		`"x".repeat({ valueOf() { return 2 ** 30 } })`,
		`"x".repeat(new Number(2 ** 30))`,
		`String.prototype.repeat.call({ toString() { return "xxxx" } }, 2 ** 29)`,
		`"".padStart.call(new String("x"), Infinity)`,
		`"x".padEnd({ valueOf: () => 2 ** 31 })`,
		`"x".repeat(2 ** 24).split("", -1)`,
		`String.prototype.split.call({ toString: () => "x".repeat(2 ** 24) }, "")`,
		`new Array(1e9).fill(0, { valueOf: () => 0 })`,
		`Array.prototype.join.call({ length: 2 ** 20 }, { toString: () => "x".repeat(1024) })`,
		`new ArrayBuffer({ valueOf: () => 2 ** 40 })`,
		`new ArrayBuffer("1e12")`,
		`Array.from(new Array(1e9))`,
		`Array.from("x".repeat(2 ** 23))`,
	} {
		t.Run(alloc, func(t *testing.T) {
			p := compileModule(t, `export default function () { try { return { n: (`+alloc+`).length } } catch (e) { return { caught: String(e) } } }`)
			_, err := call(t, p, `{}`, quick)
			wantCode(t, err, errcode.ModuleMemoryExceeded)
		})
	}
}

// The guards must leave ordinary use of the builtins alone, including their
// own errors.
func TestGuardsKeepBuiltinBehaviour(t *testing.T) {
	p := compileModule(t, `export default function () {
		const caught = (f) => { try { f(); return "none" } catch (e) { return e.constructor.name } };
		let valueOfCalls = 0;
		const counted = { valueOf() { valueOfCalls++; return 3 } };
		return {
			repeat: "ab".repeat(counted), repeatInf: caught(() => "x".repeat(Infinity)), repeatNeg: caught(() => "x".repeat(-1)),
			repeatNull: caught(() => String.prototype.repeat.call(null, 2)), repeatEmpty: "".repeat(2 ** 40).length,
			pad: "7".padStart(3, "0") + "|" + "7".padEnd(3) + "|" + "long".padStart(2),
			split: ["a,b,,c".split(","), "abc".split(""), "a1b2c".split(/\d/), "a,b,c".split(",", 2), "abc".split(), "a-b".split({ toString: () => "-" })],
			fill: [new Array(3).fill(1), [1, 2, 3, 4].fill(0, 1, -1), Array.prototype.fill.call({ length: 2 }, "x")],
			join: [[1, 2, 3].join(), [1, [2, 3]].join("-"), Array.prototype.join.call({ length: 2, 0: "a", 1: "b" }, "+")],
			from: [Array.from("héllo"), Array.from(new Set([1, 2])), Array.from({ length: 3 }, (_, i) => i * i), Array.from(new Map([[1, 2]]))],
			parse: JSON.parse('{"a":[1,{"b":null}]}', (k, v) => (v === null ? "null!" : v)),
			buffers: [new ArrayBuffer(8).byteLength, new Uint8Array([1, 2, 3]).length, new Float64Array(new Set([1.5]))[0],
				Uint8Array.from([1, 2]).length, new Uint8Array(new ArrayBuffer(16), 4, 4).length, new Int16Array(new Uint8Array([7]))[0],
				new Uint8Array(4).map((x, i) => i * 2)[3], new Uint8Array([5, 6]).slice(1)[0]],
			valueOfCalls,
		};
	}`)
	res, err := call(t, p, `{}`, quick)
	wantOutput(t, res, err, `{"repeat":"ababab","repeatInf":"RangeError","repeatNeg":"RangeError","repeatNull":"TypeError","repeatEmpty":0,`+
		`"pad":"007|7  |long","split":[["a","b","","c"],["a","b","c"],["a","b","c"],["a","b"],["abc"],["a","b"]],`+
		`"fill":[[1,1,1],[1,0,0,4],{"0":"x","1":"x","length":2}],"join":["1,2,3","1-2,3","a+b"],`+
		`"from":[["h","é","l","l","o"],[1,2],[0,1,4],[[1,2]]],"parse":{"a":[1,{"b":"null!"}]},`+
		`"buffers":[8,3,1.5,2,4,7,6,6],"valueOfCalls":1}`)
}
