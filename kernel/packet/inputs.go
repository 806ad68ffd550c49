package packet

import (
	"maps"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/errcode"
)

// Inputs gives the packet-typed inputs of method m (an input whose type is
// a packet id) their content: the packet itself, checked against the
// packet's schema, or a reference to one the project holds (Resolve, with
// runIDs the runs whose refs it may name, the caller's first), replaced by
// its content. An input typed runx.artifact.v1 receives the descriptor
// itself, checked for its shape and never dereferenced. It answers the
// inputs as the method gets them and the artifacts references gave, each
// labelled input/<name>, for the receipt of the call they fed. A method
// with no packet input costs nothing.
func Inputs(p *pkg.Package, m *pkg.Method, projectDir string, runIDs []string, inputs map[string]any) (map[string]any, []receipt.Artifact, error) {
	var out map[string]any
	var given []receipt.Artifact
	var store *artifactstore.Store
	for _, spec := range m.Inputs {
		v, present := inputs[spec.Name]
		if !present || v == nil || !ValidID(spec.Type) {
			continue
		}
		fail := func(err error) error {
			f := contract.BodyOf(err)
			return contract.Errorf(f.Code, "input %s: %s", spec.Name, f.Message)
		}
		reg, err := ForPackage(p)
		if err != nil {
			return nil, nil, err
		}
		s, err := reg.Require(spec.Type, "input "+spec.Name)
		if err != nil {
			return nil, nil, err
		}
		if spec.Type == ArtifactPacket || !IsReference(v) {
			if err := s.Check(v); err != nil {
				return nil, nil, fail(err)
			}
			continue
		}
		if store == nil {
			if store, err = artifactstore.Open(projectDir); err != nil {
				return nil, nil, contract.Errorf(errcode.PacketStoreUnavailable, "the project's artifact store cannot be opened: %v", err)
			}
		}
		content, d, err := Resolve(store, runIDs, v, s)
		if err != nil {
			return nil, nil, fail(err)
		}
		if out == nil {
			out = maps.Clone(inputs)
		}
		out[spec.Name] = content
		given = append(given, receipt.Artifact{Label: "input/" + spec.Name, Digest: d.Digest, Bytes: d.Bytes, MediaType: d.MediaType, Packet: d.Packet, Ref: d.Ref})
	}
	if out == nil {
		return inputs, nil, nil
	}
	return out, given, nil
}
