package plugin

import (
	"errors"
	"reflect"
	"testing"
)

func TestArgvFromDescription(t *testing.T) {
	whole := &Definition{ArgvInput: "/argv"}
	split := &Definition{ArgvInput: "/command", ArgsInput: "/args"}
	for name, tc := range map[string]struct {
		d     *Definition
		input string
		want  []string
		fails bool
	}{
		"an argv array":         {whole, `{"argv":["make","test"]}`, []string{"make", "test"}, false},
		"command and args":      {split, `{"command":"npm","args":["run","dev"]}`, []string{"npm", "run", "dev"}, false},
		"a command alone":       {split, `{"command":"top"}`, []string{"top"}, false},
		"argv missing":          {whole, `{}`, nil, true},
		"argv not strings":      {whole, `{"argv":["a",1]}`, nil, true},
		"command empty":         {split, `{"command":""}`, nil, true},
		"args not an array":     {split, `{"command":"a","args":"b c"}`, nil, true},
		"input not JSON":        {whole, `{`, nil, true},
		"escaped pointer token": {&Definition{ArgvInput: "/a~1b"}, `{"a/b":["x"]}`, []string{"x"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := tc.d.Argv([]byte(tc.input))
			if tc.fails != (err != nil) || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, %v", got, err)
			}
		})
	}
	if _, err := (&Definition{}).Argv([]byte(`{}`)); !errors.Is(err, ErrNoArgv) {
		t.Fatalf("got %v", err)
	}
}
