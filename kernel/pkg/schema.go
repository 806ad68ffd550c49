package pkg

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL is the name an inline schema compiles under; it never leaves the
// compiler.
const schemaURL = "runx:inline-schema.json"

// noRemoteSchemas refuses every $ref to another document: a package is pure
// data, and loading one must not read files or reach the network.
type noRemoteSchemas struct{}

func (noRemoteSchemas) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas may not reference other documents (%s); inline the definition under $defs", url)
}

// compileSchema compiles an inline JSON Schema (draft 2020-12 unless it names
// another with $schema).
func compileSchema(doc map[string]any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noRemoteSchemas{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, errors.New(lastLine(err.Error()))
	}
	return sch, nil
}

// lastLine keeps the most specific line of the compiler's indented error
// tree (its deepest cause), so a refusal stays one line.
func lastLine(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	return strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-1]), "- ")
}

// schemaFailure says where a value broke its schema without quoting the value,
// which may be a secret or a whole rejected document.
func schemaFailure(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "it does not match its schema"
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	at := "/" + strings.Join(escapePointer(ve.InstanceLocation), "/")
	if len(ve.InstanceLocation) == 0 {
		at = "the value"
	}
	return fmt.Sprintf("%s breaks schema keyword /%s", at, strings.Join(escapePointer(ve.ErrorKind.KeywordPath()), "/"))
}

func escapePointer(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
	}
	return out
}
