package pkg

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/pkg/semver"
)

// boundedRead runs read and fails when it allocated more than a fixed
// allowance plus a multiple of its input: a file's cost must stay linear in
// its length (the parser's tokens take up to ~250 bytes a byte), never
// quadratic in its nesting or its keys.
func boundedRead(t *testing.T, size int, read func() error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := read()
	runtime.ReadMemStats(&after)
	if allowed := uint64(64<<20 + 1024*size); after.TotalAlloc-before.TotalAlloc > allowed {
		t.Fatalf("reading %d bytes allocated %d, over %d", size, after.TotalAlloc-before.TotalAlloc, allowed)
	}
	var e *Error
	if err != nil && !errors.As(err, &e) {
		t.Fatalf("untyped failure %T: %v", err, err)
	}
}

// shapeSeeds are small forms of the shapes that cost the parser quadratic
// memory, so fuzzing starts beside them.
var shapeSeeds = []string{
	"a: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
	"a: " + strings.Repeat("{a: ", 200) + "1" + strings.Repeat("}", 200) + "\n",
	"a:\n" + strings.Repeat("- ", 200) + "x\n",
	strings.Repeat("? ", 200) + "x\n",
	strings.Repeat("a: 1\n", 1100),
}

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
	for _, seed := range shapeSeeds {
		f.Add([]byte(seed))
	}
	runx, _ := semver.Parse(testRunx)
	f.Fuzz(func(t *testing.T, src []byte) {
		boundedRead(t, len(src), func() error {
			_, err := decodeProfile("run.yaml", src, "fuzz", runx, testRunx)
			return err
		})
	})
}

// FuzzSkillMD holds the same properties for SKILL.md.
func FuzzSkillMD(f *testing.F) {
	f.Add([]byte(testSkillMD))
	f.Add([]byte("---\nname: x\ndescription: &d y\n---\nm\n"))
	f.Add([]byte("\ufeff---\r\nname: x\r\ndescription: y\r\n---\r\n"))
	for _, seed := range shapeSeeds {
		f.Add([]byte("---\nname: x\ndescription: y\n" + seed + "---\n"))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		boundedRead(t, len(src), func() error {
			_, err := parseSkillMD("SKILL.md", src)
			return err
		})
	})
}

// FuzzConnector holds the same properties for connector.yaml.
func FuzzConnector(f *testing.F) {
	for _, path := range []string{"testdata/connected/connectors/forge/connector.yaml", "../../skills/open-meteo-weather/connectors/open-meteo/connector.yaml"} {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, seed := range shapeSeeds {
		f.Add([]byte("name: c\n" + seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		boundedRead(t, len(src), func() error {
			_, err := decodeConnector("connector.yaml", src, "c")
			return err
		})
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
