package registry

import (
	"fmt"
	"strings"
	"testing"
)

// The checker refuses each planted literal under the rule it breaks, and
// nothing in test files, testdata or the registry itself.
func TestCheckRefusesPlantedLiterals(t *testing.T) {
	w, err := Check("testdata/planted", "example.com/m", "reg", map[string]string{"thing_missing": "ThingMissing"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range w.Findings {
		got = append(got, fmt.Sprintf("%d:%d %s", f.Pos.Line, f.Pos.Column, f.Rule))
	}
	want := []string{
		"16:31 " + RuleLiteralAsCode,    // return "made_up" from a func returning Code
		"19:9 " + RuleLiteralAsCode,     // refuse("made_up", ...): a Code parameter
		"20:15 " + RuleLiteralAsCode,    // &Error{Code: "made_up"}
		"21:11 " + RuleLiteralAsCode,    // reg.Code("made_up")
		"22:2 " + RuleRegisteredLiteral, // "thing_missing" anywhere
		"27:11 " + RuleLiteralAsCode,    // e.Code = "made_up"
		"28:12 " + RuleLiteralAsCode,    // e.with(1, "made_up"): a method's Code parameter
		"29:31 " + RuleLiteralAsCode,    // a func literal returning Code
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if w.Files != 1 {
		t.Fatalf("read %d files; want only a/a.go (tests, testdata and the registry are not checked)", w.Files)
	}
	if w.Uses["ThingMissing"] != 1 {
		t.Fatalf("uses of ThingMissing = %d, want 1", w.Uses["ThingMissing"])
	}
}

// Load refuses a registry whose codes share a spelling, lack a meaning or a
// "Do:" line, are not snake_case, or sit outside an area file.
func TestLoadRefusesMalformedRegistry(t *testing.T) {
	_, err := Load("testdata/badreg")
	if err == nil {
		t.Fatal("a malformed registry loaded")
	}
	for _, want := range []string{
		"Stray is declared in code.go",
		`ThingMissing and ThingAbsent share the spelling "thing_missing"`,
		`ThingBad's doc comment has no "Do: " line`,
		`ThingOdd's doc comment does not start "ThingOdd: "`,
		`ThingCamel is spelled "ThingCamel", not snake_case`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
}
