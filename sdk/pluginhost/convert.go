package pluginhost

import (
	"time"

	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/proto/pluginv1"
)

func infoFromProto(in *pluginv1.DescribeResponse) *plugin.Info {
	out := &plugin.Info{
		Name:            in.GetName(),
		Version:         in.GetVersion(),
		SDKVersion:      in.GetSdkVersion(),
		ProtocolVersion: int(in.GetProtocolVersion()),
	}
	for _, pd := range in.GetCapabilities() {
		d := plugin.Definition{
			ID:           pd.GetId(),
			Summary:      pd.GetSummary(),
			InputSchema:  pd.GetInputSchema(),
			OutputSchema: pd.GetOutputSchema(),
			Effect:       pd.GetEffect(),
			Scopes:       pd.GetScopes(),
			Approval:     pd.GetApproval(),
			Idempotent:   pd.GetIdempotent(),
			Previews:     pd.GetPreviews(),
			Recovers:     pd.GetRecovers(),
			Roles:        pd.GetRoles(),
			ArgvInput:    pd.GetArgvInput(),
			ArgsInput:    pd.GetArgsInput(),
			Credentials:  pd.GetCredentials(),
		}
		for _, pi := range pd.GetPathInputs() {
			d.PathInputs = append(d.PathInputs, plugin.PathInput{Pointer: pi.GetPointer(), Role: pi.GetRole()})
		}
		if c := pd.GetCost(); c != nil {
			d.Cost = &plugin.Cost{Per: c.GetPer(), Source: c.GetSource(), SourceURL: c.GetSourceUrl()}
			if c.GetHasUsdMicro() {
				v := c.GetUsdMicro()
				d.Cost.USDMicro = &v
			}
		}
		out.Capabilities = append(out.Capabilities, d)
	}
	for _, a := range in.GetAdapters() {
		out.Adapters = append(out.Adapters, plugin.Adapter{ID: a.GetId(), Summary: a.GetSummary(), BindingSchema: a.GetBindingSchema(), Credentials: a.GetCredentials()})
	}
	for _, p := range in.GetPackets() {
		out.Packets = append(out.Packets, plugin.Packet{ID: p.GetId(), Schema: p.GetSchema()})
	}
	return out
}

func contextToProto(c *plugin.Context) *pluginv1.InvocationContext {
	return &pluginv1.InvocationContext{
		RunId:          c.RunID,
		StepAddress:    c.StepAddress,
		CallId:         c.CallID,
		Attempt:        uint32(c.Attempt),
		WorkspaceRoot:  c.WorkspaceRoot,
		PackageRoot:    c.PackageRoot,
		Reach:          c.Reach,
		ReachRoots:     c.ReachRoots,
		DeadlineUnixMs: unixMillis(c.Deadline),
		IdempotencyKey: c.IdempotencyKey,
		Binding:        c.Binding,
		Credentials:    c.Credentials,
		ClockUnixMs:    unixMillis(c.Clock),
		ProtectedRoots: c.ProtectedRoots,
	}
}

func unixMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
