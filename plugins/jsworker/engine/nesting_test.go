package engine

import (
	"strings"
	"testing"
)

func TestNestingDepthCountsWhatParsersRecurseOn(t *testing.T) {
	const n = 20000 // twice MaxSourceNesting
	rep := strings.Repeat
	bombs := map[string]string{
		"parentheses":  "x = " + rep("(", n) + "1" + rep(")", n),
		"arrays":       "x = " + rep("[", n) + rep("]", n),
		"objects":      "x = " + rep("{a:", n) + "1" + rep("}", n),
		"blocks":       rep("{", n) + rep("}", n),
		"templates":    "x = " + rep("`${", n) + "1" + rep("}`", n),
		"arrows":       "x = " + rep("a => ", n) + "1",
		"assignments":  rep("a = ", n) + "1",
		"conditionals": "x = " + rep("a ? b : ", n) + "1",
		"not":          "x = " + rep("!", n) + "1",
		"negation":     "x = " + rep("- ", n) + "1",
		"typeof":       "x = " + rep("typeof ", n) + "1",
		"new":          "x = " + rep("new ", n) + "X",
		"spread":       "f(" + rep("...", n) + "a)",
		"if":           rep("if (a) ", n) + ";",
		"else if":      rep("if (a) {} else ", n) + "{}",
		"while":        rep("while (a) ", n) + ";",
		"for await":    "async function f() {" + rep("for await (const x of y) ", n) + "; }",
		// A division after an object literal read as a regular expression
		// must not hide the brackets inside the would-be literal.
		"regex span": "x = [" + rep("a = {} / [[[[x / 1, ", n/4) + "]",
		// Nor may a regular expression read as code close brackets opened
		// outside it.
		"regex closers": rep("[function () { if (a) /]]}}))/.test(s); return ", n/2) + "1",
		"member names":  rep("a.if.else.while.do(", n) + rep(")", n),
		// A line break inside a chain inserts no semicolon.
		"conditionals across lines": "x = " + rep("a ? b\n: ", n) + "1",
		"arrows across lines":       "x = " + rep("a =>\n", n) + "1",
	}
	for name, src := range bombs {
		if d := nestingDepth([]byte(src)); d <= MaxSourceNesting {
			t.Errorf("%s: depth %d, want more than %d", name, d, MaxSourceNesting)
		}
	}
}

func TestNestingDepthAcceptsOrdinaryCode(t *testing.T) {
	rep := strings.Repeat
	ordinary := map[string]string{
		"many statements":     rep("if (a) { b(); } else { c(); }\nx = y ? 1 : 2;\n", 20000),
		"no semicolons":       rep("if (a) { b() }\nconst f = (x) => x + 1\n", 20000),
		"long sum":            "x = " + rep("a + ", 50000) + "1;",
		"long and":            "x = " + rep("!a && ", 50000) + "1;",
		"long comma list":     "f(" + rep("a = 1, ", 50000) + "1);",
		"many regexes":        rep("x = /[(\\[{]+/.test(s) || /\\)+/.test(s);\n", 20000),
		"regex after block":   rep("function f() {}\n/[[]/.test(s);\n", 20000),
		"regex, no semicolon": rep("function f() {}\n/[[]/.test(s)\nfoo()\n", 20000),
		"strings":             rep(`x = "(((({{{{[[[[" + '))))' + `+"`"+`${"{"}`+"`"+`;`+"\n", 20000),
		"comments":            rep("// ((((\n/* [[[[ */\n", 20000),
		"object literals":     "x = [" + rep("{ a: 1, b: [1, 2], c: { d: 'e' } }, ", 20000) + "];",
		"division and regex":  rep("x = (a + b) / 2 / c; y = a / b; z = /x/g;\n", 20000),
		"keyword properties":  rep("a.return / 2; b.typeof / c; ", 20000),
	}
	for name, src := range ordinary {
		if d := nestingDepth([]byte(src)); d > 100 {
			t.Errorf("%s: depth %d, want at most 100", name, d)
		}
	}
}

func TestNestingDepthOfRealisticModule(t *testing.T) {
	src := `
#!/usr/bin/env node
import { a } from "./a.mjs";
/** A doc comment with (unbalanced [ brackets. */
export default async function compose(input, { environment }) {
  const re = /^(?:[a-z]+)\/(\d+)$/i, half = input.n / 2;
  const parts = input.items?.map((item, i) => ({ ...item, i, label: ` + "`#${i}: ${item.name ?? \"?\"}`" + ` })) ?? [];
  for await (const p of parts) { if (!p) continue; }
  label: for (let i = 0; i < 3; i++) { if (i % 2) continue label; else break; }
  class K extends Base { #x = 1; static y = 2; get z() { return this.#x / 2; } }
  return { re: re.test(input.s), half, parts, k: new K().z, env: environment.X };
}`
	if d := nestingDepth([]byte(src)); d > 12 {
		t.Fatalf("depth %d, want at most 12", d)
	}
}
