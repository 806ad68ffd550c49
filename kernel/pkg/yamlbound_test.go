package pkg

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/sdk/errcode"
)

// yamlBombs are files a few hundred kilobytes long, each under MaxYAMLBytes,
// that cost the parser memory quadratic in their length: before checkShape,
// the first took 15-20 GB.
func yamlBombs() map[string]struct{ kind, src string } {
	var flat, lines strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&flat, "%x: 1\n", i)
	}
	for i := range 700 {
		lines.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return map[string]struct{ kind, src string }{
		"flow sequences":    {"run.yaml", "a: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n"},
		"flow mappings":     {"run.yaml", "a: " + strings.Repeat("{a: ", 40000) + "1" + strings.Repeat("}", 40000) + "\n"},
		"compact entries":   {"run.yaml", "a:\n" + strings.Repeat("- ", 100000) + "x\n"},
		"explicit keys":     {"run.yaml", strings.Repeat("? ", 100000) + "x\n"},
		"keys of a mapping": {"run.yaml", flat.String()},
		"indented lines":    {"run.yaml", lines.String()},
		"front matter":      {"SKILL.md", "---\nname: x\ndescription: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n---\nbody\n"},
		"connector":         {"connector.yaml", "name: c\nactions: " + strings.Repeat("{a: ", 40000) + "1" + strings.Repeat("}", 40000) + "\n"},
	}
}

// childMemoryCeiling is what a child reading one bomb may hold at once; the
// watchdog kills it past this, so a regression fails fast instead of
// taking the machine's memory.
const childMemoryCeiling = 512 << 20

// TestYAMLBombsStayBounded reads each bomb in a child process under a
// memory watchdog and asserts a typed refusal, the child's peak resident
// memory and its time.
func TestYAMLBombsStayBounded(t *testing.T) {
	if os.Getenv("RUNX_YAML_BOMB") != "" {
		t.Skip("in the child")
	}
	for name, bomb := range yamlBombs() {
		t.Run(name, func(t *testing.T) {
			if len(bomb.src) > MaxYAMLBytes+100 {
				t.Fatalf("bomb %d bytes is over MaxYAMLBytes: it would test the size cap, not the parse", len(bomb.src))
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestYAMLBombChild$", "-test.v")
			cmd.Env = append(os.Environ(), "RUNX_YAML_BOMB="+name)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("child failed after %v: %v\n%s", elapsed, err, out)
			}
			// The child reports its own high-water mark: rusage's maxrss
			// would carry the parent's, which a fork starts from.
			rss := peakOf(out)
			t.Logf("%s (%d bytes): peak RSS %d MiB, %v: %s", bomb.kind, len(bomb.src), rss>>20, elapsed.Round(time.Millisecond), lastLine(out))
			if rss > childMemoryCeiling {
				t.Fatalf("peak RSS %d MiB is over %d MiB", rss>>20, childMemoryCeiling>>20)
			}
		})
	}
}

// TestYAMLBombChild is the child: it reads the bomb its parent names and
// prints the refusal's code.
func TestYAMLBombChild(t *testing.T) {
	name := os.Getenv("RUNX_YAML_BOMB")
	if name == "" {
		t.Skip("run by TestYAMLBombsStayBounded")
	}
	go watchMemory(childMemoryCeiling)
	bomb := yamlBombs()[name]
	var err error
	switch bomb.kind {
	case "SKILL.md":
		_, err = parseSkillMD("SKILL.md", []byte(bomb.src))
	case "connector.yaml":
		_, err = decodeConnector("connector.yaml", []byte(bomb.src), "c")
	default:
		runx, _ := semver.Parse(testRunx)
		_, err = decodeProfile("run.yaml", []byte(bomb.src), "p", runx, testRunx)
	}
	want := errcode.RunxYAMLInvalid
	if bomb.kind == "SKILL.md" {
		want = errcode.SkillMDInvalid
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != want {
		t.Fatalf("got %v, want a %s refusal", err, want)
	}
	fmt.Printf("refused %s: %s\n", e.Code, e.Message)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Printf("peak %s\n", strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "VmHWM:"), "kB")))
		}
	}
}

// peakOf reads the child's reported high-water mark, in bytes.
func peakOf(out []byte) int64 {
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "peak "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n << 10
		}
	}
	return 1 << 62
}

func watchMemory(ceiling uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	for {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > ceiling {
			fmt.Fprintf(os.Stderr, "memory %d MiB over the ceiling %d MiB\n", v>>20, ceiling>>20)
			os.Exit(3)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func lastLine(out []byte) string {
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(l, "refused ") {
			return l
		}
	}
	return ""
}

// TestPackageFileCeilings: a package file over MaxPackageFileBytes is
// refused before it is read, and YAML over MaxYAMLBytes before it is
// parsed, each naming its ceiling.
func TestPackageFileCeilings(t *testing.T) {
	big := strings.Repeat("# filler line of a package file\n", MaxPackageFileBytes/32+1)
	bigYAML := strings.Repeat("# filler\n", MaxYAMLBytes/9+1) + "methods: {}\n"
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"run.yaml over the file ceiling", map[string]string{"SKILL.md": testSkillMD, "run.yaml": big}, "1048576 byte ceiling"},
		{"SKILL.md over the file ceiling", map[string]string{"SKILL.md": testSkillMD + big}, "1048576 byte ceiling"},
		{"run.yaml over the YAML ceiling", map[string]string{"SKILL.md": testSkillMD, "run.yaml": bigYAML}, "262144 byte ceiling"},
		{"front matter over the YAML ceiling", map[string]string{"SKILL.md": "---\n" + bigYAML + "name: x\ndescription: y\n---\n"}, "262144 byte ceiling"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(writePackage(t, c.files), LoadOptions{RunxVersion: testRunx})
			var e *Error
			if !errors.As(err, &e) || e.Code != errcode.PackageFileTooLarge || !strings.Contains(e.Message, c.want) {
				t.Fatalf("got %v, want %s naming the %s", err, errcode.PackageFileTooLarge, c.want)
			}
		})
	}
	for _, name := range []string{"connector.yaml", "tests/t.yaml"} {
		t.Run(name, func(t *testing.T) {
			dir := writePackage(t, map[string]string{name: big})
			_, err := readPackageFile(dir + "/" + name)
			var e *Error
			if !errors.As(err, &e) || e.Code != errcode.PackageFileTooLarge {
				t.Fatalf("got %v, want %s", err, errcode.PackageFileTooLarge)
			}
		})
	}
}

// TestInputsDocumentKeyTwiceAtAnyDepth: an --inputs document is read
// strictly at every depth, not only at its top.
func TestInputsDocumentKeyTwiceAtAnyDepth(t *testing.T) {
	for doc, says := range map[string]string{
		`{"a":1,"a":2}`:                 "names one input twice",
		`{"a":{"b":[{"c":1,"c":2}]}}`:   "a.b[0].c",
		`{"a":{"x":1,"\u0078":2}}`:      "a.x",
		`{"a":1} {"b":2}`:               "not valid JSON",
		`[1]`:                           "does not start with {",
		`{"big":123456789012345678901}`: "beyond",
	} {
		_, err := decodeInputsDocument([]byte(doc))
		var e *Error
		if !errors.As(err, &e) || (e.Code != errcode.InputsDocumentInvalid && e.Code != errcode.InputTypeInvalid) || !strings.Contains(e.Message, says) {
			t.Errorf("%s: got %v, want a refusal saying %q", doc, err, says)
		}
	}
	v, err := decodeInputsDocument([]byte(`{"s":"x","n":{"i":5,"f":1.5}}`))
	if err != nil || v["s"] != "x" {
		t.Fatalf("got %v %v", v, err)
	}
}
