package pkg

import (
	"errors"
	"path/filepath"

	"github.com/runxhq/runx/kernel/pkg/packetdecl"
	"github.com/runxhq/runx/sdk/errcode"
)

// SchemasDir holds a package's packet schemas, schemas/<packet id>.json,
// registered for its runs (kernel/packet); packetdecl reads them.
const SchemasDir = "schemas"

// ValidPacketID reports whether id has the shape of a packet id.
func ValidPacketID(id string) bool { return packetdecl.ValidID(id) }

func loadPackageSchemas(dir string) (map[string]map[string]any, error) {
	out, err := packetdecl.ReadDir(filepath.Join(dir, SchemasDir), readPackageFile)
	if bad := (*packetdecl.BadSchema)(nil); errors.As(err, &bad) {
		return nil, refuse(errcode.PacketSchemaInvalid, "%v", bad)
	}
	return out, err
}
