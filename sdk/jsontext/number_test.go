package jsontext

import (
	"encoding/json"
	"testing"
)

func TestWholeNumber(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int64
		ok   bool
	}{
		{float64(42), 42, true},
		{float64(-3), -3, true},
		{1.5, 0, false},
		{int64(7), 7, true},
		{9, 9, true},
		{json.Number("12"), 12, true},
		{json.Number("1.2"), 0, false},
		{"12", 0, false},
		{nil, 0, false},
	} {
		if got, ok := WholeNumber(c.v); got != c.want || ok != c.ok {
			t.Errorf("WholeNumber(%#v) = %d, %v; want %d, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}
