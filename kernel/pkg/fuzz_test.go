package pkg

import (
	"errors"
	"os"
	"testing"
)

// FuzzDecodeProfile holds two properties for any bytes at all: decoding never
// panics, and every failure is a typed refusal (an author's mistake is never
// reported as a bug).
func FuzzDecodeProfile(f *testing.F) {
	for _, path := range []string{"testdata/hello/run.yaml", "testdata/multi/run.yaml"} {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(profileWith("          x: &v 1\n          y: *v\n")))
	f.Add([]byte("minimum_runx: 0.1.0\nmethods: { m: { steps: [ { id: a, ask: { questions: [ { id: q, prompt: p } ] } } ] } }\n"))
	f.Add([]byte("{minimum_runx: 9.0.0, methods: {}, future: *x}\n"))
	f.Add([]byte("---\n%YAML 1.2\n? [a]\n: !!binary x\n"))
	runx, _ := parseVersion(testRunx)
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := decodeProfile("run.yaml", src, "fuzz", runx, testRunx)
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("untyped failure %T: %v", err, err)
		}
	})
}

// FuzzSkillMD holds the same properties for SKILL.md.
func FuzzSkillMD(f *testing.F) {
	f.Add([]byte(testSkillMD))
	f.Add([]byte("---\nname: x\ndescription: &d y\n---\nm\n"))
	f.Add([]byte("\ufeff---\r\nname: x\r\ndescription: y\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := parseSkillMD("SKILL.md", src)
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("untyped failure %T: %v", err, err)
		}
	})
}

// FuzzInputsDocument: any document binds or is refused with a code.
func FuzzInputsDocument(f *testing.F) {
	f.Add([]byte(`{"r":"x","i":5,"j":null}`))
	f.Add([]byte(`{"r":"x","o":{"id":90071992547409930}}`))
	f.Add([]byte(`{"r":"x"} {}`))
	spec := &Method{Name: "m", Inputs: []*InputSpec{
		{Name: "r", Type: TypeString, Required: true},
		{Name: "i", Type: TypeInteger},
		{Name: "o", Type: TypeObject},
		{Name: "j", Type: TypeJSON},
	}}
	f.Fuzz(func(t *testing.T, doc []byte) {
		_, err := BindInputs(spec, InputSource{Document: doc, HasDocument: true})
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("untyped failure %T: %v", err, err)
		}
	})
}
