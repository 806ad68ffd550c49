package pkg

import (
	"errors"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/pkg/schema"
	"github.com/runxhq/runx/sdk/errcode"
)

// A refusal for a schema that does not compile is a load refusal whose
// cause is the typed schema.Error.
func TestLoadRefusesUnsupportedSchemaKeyword(t *testing.T) {
	_, _, err := loadProfile(t, "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs:\n      email: { type: string, schema: { format: email } }\n    steps: [{ id: a, tool: fs.read }]\n")
	e := wantRefusal(t, err, errcode.MethodInvalid, 5, 38)
	var se *schema.Error
	if !errors.As(err, &se) || se.Keyword != "format" || !strings.Contains(e.Message, `"format"`) {
		t.Fatalf("%v (cause %v)", err, se)
	}
	_, _, err = loadProfile(t, "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps:\n      - id: a\n        tool: fs.read\n        outputs: { o: { schema: { $ref: \"https://x/s.json\" } } }\n")
	wantRefusal(t, err, errcode.StepInvalid, 7, 33)
	if !errors.As(err, &se) || se.Keyword != "$ref" {
		t.Fatalf("%v", err)
	}
}
