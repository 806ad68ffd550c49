package engine

import "testing"

// The bundle target must be one goja runs: modern syntax a module author
// writes is either native to goja or lowered by esbuild.
func TestLanguageSupport(t *testing.T) {
	p := compileClosure(t, closure("main.mjs", map[string]string{
		"shapes.mjs": `
			export class Shape { #id; static count = 0; static { Shape.kind = "shape" } constructor(id) { this.#id = id; Shape.count++ } get id() { return this.#id } #secret() { return 1 } reveal() { return this.#secret() } }
			export class Square extends Shape { constructor(id, side) { super(id); this.side = side } area() { return this.side ** 2 } }`,
		"main.mjs": `
			import { Shape, Square } from "./shapes.mjs";
			function* naturals() { let n = 0; for (;;) yield n++ }
			async function* letters() { yield "a"; yield "b" }
			const tag = (strings, ...values) => strings.raw.join("|") + values.join(",");
			export default async function (input) {
				const { a = 1, ...rest } = input, [first, , third = 3] = [1, 2];
				const sq = new Square("s1", 3);
				const seen = [];
				for await (const l of letters()) seen.push(l);
				const it = naturals();
				outer: for (const i of [1, 2, 3]) { for (const j of [1, 2]) { if (j === 2) continue outer; if (i === 3) break outer } }
				return {
					a, rest, first, third, area: sq.area(), id: sq.id, secret: sq.reveal(), count: Shape.count, kind: Shape.kind,
					chain: input.missing?.deep?.value ?? "default", big: (2n ** 64n).toString(), seen,
					gen: [it.next().value, it.next().value], groups: /(?<y>\d{4})-(?<m>\d{2})/.exec("2031-03").groups.y,
					tagged: tag` + "`x${1}y${2}`" + `, at: [1, 2, 3].at(-1), flat: [[1], [2, [3]]].flat(2),
					entries: Object.fromEntries(new Map([["k", "v"]])), sorted: [3, 1, 2].toSorted(), hasOwn: Object.hasOwn({ q: 1 }, "q"),
					set: [...new Set([1, 1, 2])], sym: typeof Symbol.iterator, json: JSON.parse('{"n":[1]}').n[0],
					local: new Intl_free().v, fixed: (1.005).toFixed(2), regexAll: [..."a1b2".matchAll(/\d/g)].map((m) => m[0]),
				};
			}
			class Intl_free { v = "ok" }`,
	}))
	res, err := call(t, p, `{"b":2,"c":3}`, quick)
	wantOutput(t, res, err, `{"a":1,"rest":{"b":2,"c":3},"first":1,"third":3,"area":9,"id":"s1","secret":1,"count":1,"kind":"shape",`+
		`"chain":"default","big":"18446744073709551616","seen":["a","b"],"gen":[0,1],"groups":"2031",`+
		`"tagged":"x|y|1,2","at":3,"flat":[1,2,3],"entries":{"k":"v"},"sorted":[1,2,3],"hasOwn":true,`+
		`"set":[1,2],"sym":"symbol","json":1,"local":"ok","fixed":"1.00","regexAll":["1","2"]}`)
}
