package step

import (
	"slices"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/packet"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/errcode"
)

// packetOutputs are the outputs of a unit of step that name a packet: the
// step's own, and what the run adds for it (an operation's declared
// outputs, a skill call's method's: Run.OutputsOf), each with the package
// whose schemas it names.
func (r *Run) packetOutputs(step *pkg.Step) (map[string]*pkg.OutputSpec, map[string]*pkg.Package) {
	var out map[string]*pkg.OutputSpec
	owner := map[string]*pkg.Package{}
	add := func(outputs map[string]*pkg.OutputSpec, p *pkg.Package) {
		for name, o := range outputs {
			if o.Packet == "" {
				continue
			}
			if out == nil {
				out = map[string]*pkg.OutputSpec{}
			}
			if _, have := out[name]; !have {
				out[name], owner[name] = o, p
			}
		}
	}
	add(step.Outputs, r.Package)
	if r.OutputsOf != nil {
		if more, p := r.OutputsOf(step); p != nil {
			add(more, p)
		}
	}
	return out, owner
}

// keepPackets keeps each packet output of a unit that succeeded as a
// project artifact of its packet, a reference of the run labelled
// output/<name>, and names each in the unit's receipt. It answers the
// artifacts by output name (a call's result names them), or the failure
// that fails the unit: a value that does not meet its packet
// (packet_invalid), or a store that cannot keep it. A unit naming no
// packet costs nothing here.
func (r *Run) keepPackets(step *pkg.Step, local string, output any, body *receipt.Body) (map[string]artifactstore.Descriptor, *contract.ErrorBody) {
	declared, owner := r.packetOutputs(step)
	if len(declared) == 0 {
		return nil, nil
	}
	values, _ := output.(map[string]any)
	names := make([]string, 0, len(declared))
	for name := range declared {
		if _, present := values[name]; present {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	sort.Strings(names)
	store, err := artifactstore.Open(r.ProjectDir)
	if err != nil {
		return nil, &contract.ErrorBody{Code: errcode.PacketStoreUnavailable, Message: "the project's artifact store cannot be opened: " + err.Error()}
	}
	kept := make(map[string]artifactstore.Descriptor, len(names))
	var named []receipt.Artifact
	for _, name := range names {
		what := "step " + step.ID + " output " + name
		reg, err := packet.ForPackage(owner[name])
		if err != nil {
			return nil, contract.BodyOf(err)
		}
		s, err := reg.Require(declared[name].Packet, what)
		if err != nil {
			return nil, contract.BodyOf(err)
		}
		// A verdict names its evaluator (evaluator.go) before it is kept.
		v, err := packet.Stamp(s, values[name], r.producer(step, body))
		var d artifactstore.Descriptor
		if err == nil {
			values[name] = v
			d, err = packet.Keep(store, r.ID, "output/"+name, s, v)
		}
		if err != nil {
			f := contract.BodyOf(err)
			f.Message = what + ": " + f.Message
			return nil, f
		}
		kept[name] = d
		named = append(named, receipt.Artifact{Label: "output/" + name, Digest: d.Digest, Bytes: d.Bytes, MediaType: d.MediaType, Packet: d.Packet, Ref: d.Ref})
	}
	WithArtifacts(body, named...)
	return kept, nil
}

// WithArtifacts adds more to a body's artifacts, kept in label order, a
// label named once.
func WithArtifacts(body *receipt.Body, more ...receipt.Artifact) {
	if len(more) == 0 {
		return
	}
	all := append(slices.Clone(body.Artifacts), more...)
	slices.SortFunc(all, func(x, y receipt.Artifact) int { return strings.Compare(x.Label, y.Label) })
	body.Artifacts = slices.CompactFunc(all, func(x, y receipt.Artifact) bool { return x.Label == y.Label })
}
