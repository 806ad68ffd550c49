// Package packetdecl reads what a package declares of packets: a packet
// id's shape, and the schemas/<packet id>.json files that give a packet
// its JSON Schema. It is a part of the loader (kernel/pkg), which refuses
// what it reports; kernel/packet registers what it reads.
package packetdecl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/kernel/pkg/schema"
)

// idPattern is a packet id: dotted lowercase names ending in a version,
// runx.verdict.v1 or acme.billing.invoice.v2.
var idPattern = regexp.MustCompile(`^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*\.v[1-9][0-9]*$`)

// ValidID reports whether id has the shape of a packet id, at most 128
// bytes.
func ValidID(id string) bool { return len(id) <= 128 && idPattern.MatchString(id) }

// BadSchema is a declared schema file that is no JSON Schema object or
// does not compile.
type BadSchema struct {
	Path   string
	Reason string
}

func (b *BadSchema) Error() string { return fmt.Sprintf("%s %s", b.Path, b.Reason) }

// ReadDir reads the packet schemas in dir, each file read with read (the
// loader's, which refuses links and bounds size) and compiled. A file whose
// name is not <packet id>.json is not a packet's; a dir that is not there
// declares none.
func ReadDir(dir string, read func(path string) ([]byte, error)) (map[string]map[string]any, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out map[string]map[string]any
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !ValidID(id) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		raw, err := read(path)
		if err != nil {
			return nil, err
		}
		var obj map[string]any
		if doc, err := jsonvalue.Decode(raw); err == nil {
			obj, _ = doc.(map[string]any)
		}
		if obj == nil {
			return nil, &BadSchema{Path: path, Reason: "is not a JSON Schema object"}
		}
		if _, err := schema.CompileValue(obj); err != nil {
			return nil, &BadSchema{Path: path, Reason: "does not compile: " + err.Error()}
		}
		if out == nil {
			out = map[string]map[string]any{}
		}
		out[id] = obj
	}
	return out, nil
}
