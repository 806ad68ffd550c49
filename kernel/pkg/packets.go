package pkg

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/kernel/pkg/schema"
	"github.com/runxhq/runx/sdk/errcode"
)

// SchemasDir holds a package's declared packet schemas: each
// schemas/<packet id>.json is the JSON Schema of that packet, registered
// for the package's runs (kernel/packet). A file there whose name is not a
// packet id is a schema the package's modules read, not a packet. A packet
// id is dotted lowercase names ending in a version, at most 128 bytes.
const SchemasDir = "schemas"

var packetID = regexp.MustCompile(`^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*\.v[1-9][0-9]*$`)

// ValidPacketID reports whether id has the shape of a packet id.
func ValidPacketID(id string) bool { return len(id) <= 128 && packetID.MatchString(id) }

// loadPackageSchemas reads the package's packet schemas, each checked to
// compile; a package without schemas/ declares none.
func loadPackageSchemas(dir string) (map[string]map[string]any, error) {
	entries, err := os.ReadDir(filepath.Join(dir, SchemasDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out map[string]map[string]any
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !ValidPacketID(id) {
			continue
		}
		path := filepath.Join(dir, SchemasDir, e.Name())
		raw, err := readPackageFile(path)
		if err != nil {
			return nil, err
		}
		var obj map[string]any
		if doc, err := jsonvalue.Decode(raw); err == nil {
			obj, _ = doc.(map[string]any)
		}
		if obj == nil {
			return nil, refuse(errcode.PacketSchemaInvalid, "%s is not a JSON Schema object", path)
		}
		if _, err := schema.CompileValue(obj); err != nil {
			return nil, refuse(errcode.PacketSchemaInvalid, "%s does not compile: %v", path, err)
		}
		if out == nil {
			out = map[string]map[string]any{}
		}
		out[id] = obj
	}
	return out, nil
}
