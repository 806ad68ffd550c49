package plugin

import (
	"time"

	"github.com/runxhq/runx/sdk/proto/pluginv1"
)

func infoToProto(in *Info) *pluginv1.DescribeResponse {
	out := &pluginv1.DescribeResponse{
		Name:            in.Name,
		Version:         in.Version,
		SdkVersion:      in.SDKVersion,
		ProtocolVersion: uint32(in.ProtocolVersion),
	}
	for _, d := range in.Capabilities {
		pd := &pluginv1.CapabilityDefinition{
			Id:           d.ID,
			Summary:      d.Summary,
			InputSchema:  d.InputSchema,
			OutputSchema: d.OutputSchema,
			Effect:       d.Effect,
			Scopes:       d.Scopes,
			Approval:     d.Approval,
			Idempotent:   d.Idempotent,
			Previews:     d.Previews,
			Recovers:     d.Recovers,
			Roles:        d.Roles,
			ArgvInput:    d.ArgvInput,
			ArgsInput:    d.ArgsInput,
			Credentials:  d.Credentials,
		}
		for _, pi := range d.PathInputs {
			pd.PathInputs = append(pd.PathInputs, &pluginv1.PathInput{Pointer: pi.Pointer, Role: pi.Role})
		}
		if d.Cost != nil {
			pd.Cost = &pluginv1.Cost{Per: d.Cost.Per, Source: d.Cost.Source, SourceUrl: d.Cost.SourceURL}
			if d.Cost.USDMicro != nil {
				pd.Cost.HasUsdMicro = true
				pd.Cost.UsdMicro = *d.Cost.USDMicro
			}
		}
		out.Capabilities = append(out.Capabilities, pd)
	}
	for _, a := range in.Adapters {
		out.Adapters = append(out.Adapters, &pluginv1.Adapter{Id: a.ID, Summary: a.Summary, BindingSchema: a.BindingSchema, Credentials: a.Credentials})
	}
	for _, p := range in.Packets {
		out.Packets = append(out.Packets, &pluginv1.PacketSchema{Id: p.ID, Schema: p.Schema})
	}
	return out
}

func contextFromProto(c *pluginv1.InvocationContext) Context {
	return Context{
		RunID:          c.GetRunId(),
		StepAddress:    c.GetStepAddress(),
		CallID:         c.GetCallId(),
		Attempt:        int(c.GetAttempt()),
		WorkspaceRoot:  c.GetWorkspaceRoot(),
		PackageRoot:    c.GetPackageRoot(),
		Reach:          c.GetReach(),
		ReachRoots:     c.GetReachRoots(),
		Deadline:       fromMillis(c.GetDeadlineUnixMs()),
		IdempotencyKey: c.GetIdempotencyKey(),
		Binding:        c.GetBinding(),
		Credentials:    c.GetCredentials(),
		Clock:          fromMillis(c.GetClockUnixMs()),
		ProtectedRoots: c.GetProtectedRoots(),
	}
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
