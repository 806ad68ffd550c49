package guard

import (
	"fmt"
	"strings"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Exclusive reports whether two `when:` guards can never both hold,
// proven from their syntax alone: some conjunct of one contradicts some
// conjunct of the other, as `x` and `!x`, `x == "a"` and `x == "b"`, or
// `x == v` and `x != v` do. Two result producers that emit one key are
// accepted at preparation only when their guards are exclusive, so a
// collision is found before any step runs, never after both succeeded. An
// empty guard always holds, so it excludes nothing.
func Exclusive(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ca, okA := guardConjuncts(a)
	cb, okB := guardConjuncts(b)
	if !okA || !okB {
		return false
	}
	for _, x := range ca {
		for _, y := range cb {
			if contradicts(x, y) || contradicts(y, x) {
				return true
			}
		}
	}
	return false
}

func guardConjuncts(expr string) ([]celast.Expr, bool) {
	env, err := guardEnv()
	if err != nil {
		return nil, false
	}
	ast, iss := env.Parse(expr)
	if iss.Err() != nil {
		return nil, false
	}
	var out []celast.Expr
	var walk func(e celast.Expr)
	walk = func(e celast.Expr) {
		if e.Kind() == celast.CallKind && e.AsCall().FunctionName() == operators.LogicalAnd {
			for _, arg := range e.AsCall().Args() {
				walk(arg)
			}
			return
		}
		out = append(out, e)
	}
	walk(ast.NativeRep().Expr())
	return out, true
}

// contradicts reports whether x holding means y cannot.
func contradicts(x, y celast.Expr) bool {
	if call(y, operators.LogicalNot) {
		if same(x, y.AsCall().Args()[0]) {
			return true
		}
	}
	xl, xv, xok := comparison(x, operators.Equals)
	if !xok {
		return false
	}
	if yl, yv, ok := comparison(y, operators.Equals); ok && xl == yl && !sameValue(xv, yv) {
		return true
	}
	if yl, yv, ok := comparison(y, operators.NotEquals); ok && xl == yl && sameValue(xv, yv) {
		return true
	}
	return false
}

// sameValue is CEL's equality of two literals: numbers compare across
// int, uint and double (1 == 1.0), anything else by type and value.
func sameValue(a, b ref.Val) bool {
	fa, numA := number(a)
	fb, numB := number(b)
	if numA || numB {
		return numA && numB && fa == fb
	}
	return a.Type().TypeName() == b.Type().TypeName() && a.Equal(b) == types.True
}

func number(v ref.Val) (float64, bool) {
	switch n := v.Value().(type) {
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func call(e celast.Expr, fn string) bool {
	return e.Kind() == celast.CallKind && e.AsCall().FunctionName() == fn && !e.AsCall().IsMemberFunction()
}

// comparison reads `operand <op> literal` (either way round) as the
// operand's canonical text and the literal.
func comparison(e celast.Expr, op string) (string, ref.Val, bool) {
	if !call(e, op) || len(e.AsCall().Args()) != 2 {
		return "", nil, false
	}
	l, r := e.AsCall().Args()[0], e.AsCall().Args()[1]
	if l.Kind() == celast.LiteralKind {
		l, r = r, l
	}
	if r.Kind() != celast.LiteralKind || l.Kind() == celast.LiteralKind {
		return "", nil, false
	}
	left, ok := render(l)
	if !ok {
		return "", nil, false
	}
	return left, r.AsLiteral(), true
}

func same(a, b celast.Expr) bool {
	ra, okA := render(a)
	rb, okB := render(b)
	return okA && okB && ra == rb
}

// render is an expression's canonical text, for comparing operands; an
// expression it cannot render (a comprehension, a literal list or map)
// compares equal to nothing.
func render(e celast.Expr) (string, bool) {
	switch e.Kind() {
	case celast.IdentKind:
		return e.AsIdent(), true
	case celast.LiteralKind:
		v := e.AsLiteral()
		return fmt.Sprintf("%s(%#v)", v.Type().TypeName(), v.Value()), true
	case celast.SelectKind:
		s := e.AsSelect()
		op, ok := render(s.Operand())
		if s.IsTestOnly() {
			return "has(" + op + "." + s.FieldName() + ")", ok
		}
		return op + "." + s.FieldName(), ok
	case celast.CallKind:
		c := e.AsCall()
		var parts []string
		if c.IsMemberFunction() {
			t, ok := render(c.Target())
			if !ok {
				return "", false
			}
			parts = append(parts, t)
		}
		for _, a := range c.Args() {
			r, ok := render(a)
			if !ok {
				return "", false
			}
			parts = append(parts, r)
		}
		return c.FunctionName() + "(" + strings.Join(parts, ",") + ")", true
	}
	return "", false
}
