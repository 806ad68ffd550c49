package packet

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Describer finds the plugin that describes a packet (the plugin host's
// catalog): its name and description, or none.
type Describer interface {
	Packet(ctx context.Context, id string) (string, *sdk.Packet, error)
}

// FromPlugins looks a packet up in the plugins' descriptions, for Prepare:
// a plugin that describes it gives its schema, registered in Base.
func FromPlugins(ctx context.Context, d Describer) func(id string) (*Schema, error) {
	return func(id string) (*Schema, error) {
		name, p, err := d.Packet(ctx, id)
		if err != nil || p == nil {
			return nil, err
		}
		doc, err := jsonvalue.Decode(p.Schema)
		obj, ok := doc.(map[string]any)
		if err != nil || !ok {
			return nil, contract.Errorf(errcode.PacketSchemaInvalid, "plugin %s describes packet %s with a schema that is not a JSON object", name, id)
		}
		return NewSchema(id, obj, FromPlugin, name)
	}
}
