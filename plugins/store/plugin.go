package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runxhq/runx/plugins/store/driver/postgres"
	"github.com/runxhq/runx/plugins/store/driver/redis"
	"github.com/runxhq/runx/plugins/store/driver/sqlite"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/store/driver"
)

// Name is the plugin's name; its capabilities are store/*.
const Name = "store"

// Version is the plugin's own version.
const Version = "0.1.0"

// Capability ids.
const (
	CapAppend  = "store/events.append"
	CapRead    = "store/events.read"
	CapInspect = "store/key.inspect"
	CapList    = "store/keys.list"
)

// Plugin serves the store operations, keeping one driver per binding.
type Plugin struct {
	mu      sync.Mutex
	drivers map[string]driver.Driver
	// clock is the run clock of the call in flight: commit times come from
	// it, so runx test (a fixed clock) reads back the same packets every run.
	clock atomic.Pointer[time.Time]
}

// New returns the store plugin.
func New() *Plugin { return &Plugin{drivers: map[string]driver.Driver{}} }

// Info describes the four operations.
func (p *Plugin) Info() plugin.Info {
	def := func(id, summary, effect string, scopes ...string) plugin.Definition {
		return plugin.Definition{ID: id, Summary: summary, Effect: effect, Scopes: scopes, Approval: plugin.ApprovalNone, Idempotent: true,
			// Each runs as an operation on a bound data source.
			Roles: []string{plugin.RoleDataOperation},
			// runx's drivers charge nothing per call; declaring it lets a run
			// under a money limit use the store, since an operation that
			// declares no cost has an unknown price, never a free one.
			Cost:        &plugin.Cost{USDMicro: new(int64), Per: "request", Source: "docs", SourceURL: "https://github.com/runxhq/runx/blob/main/docs/connectors.md#spend"},
			InputSchema: json.RawMessage(inputSchema), OutputSchema: json.RawMessage(`{"type":"object","properties":{"schema":{"const":"runx.data.operation_result.v1"}}}`)}
	}
	return plugin.Info{Name: Name, Version: Version, Capabilities: []plugin.Definition{
		def(CapAppend, "Append one event to a stream if it is still at expected_version, exactly once per idempotency key.", plugin.EffectWrite, "runx:data:append"),
		def(CapRead, "Read one bounded page of a stream: the latest tail, or events strictly after after_version in ascending order.", plugin.EffectRead, "runx:data:read"),
		def(CapInspect, "Read one stream's head: its version, last event and projection digest.", plugin.EffectRead, "runx:data:read"),
		def(CapList, "Page through one resource's stream heads with an opaque keyset cursor.", plugin.EffectRead, "runx:data:read"),
		migrateDefinition(),
	}, Adapters: adapters()}
}

// binding is what the kernel resolved the step's source to.
type binding struct {
	DataSource struct {
		Ref          string                     `json:"ref"`
		Adapter      string                     `json:"adapter"`
		DatabasePath string                     `json:"database_path"`
		Endpoint     string                     `json:"endpoint"`
		KeyPrefix    string                     `json:"key_prefix"`
		Resources    map[string]resourceBinding `json:"resources"`
		Default      bool                       `json:"default"`
	} `json:"data_source"`
	Package string `json:"package"`
}

type resourceBinding struct {
	Kind         string   `json:"kind"`
	PartitionKey string   `json:"partition_key"`
	Secret       []string `json:"secret"`
	Private      []string `json:"private"`
}

// request is the operation envelope a step sends.
type request struct {
	DataSourceRef   string          `json:"data_source_ref"`
	Resource        string          `json:"resource"`
	AggregateID     string          `json:"aggregate_id"`
	ExpectedVersion *int64          `json:"expected_version"`
	IdempotencyKey  string          `json:"idempotency_key"`
	Event           json.RawMessage `json:"event"`
	// Limit is a pointer so an explicit 0 is refused rather than read as
	// "no limit given" (issue 10 item 11).
	Limit                *int   `json:"limit"`
	AfterVersion         *int64 `json:"after_version"`
	PreviousAfterVersion *int64 `json:"previous_after_version"`
	Cursor               string `json:"cursor"`
}

// Invoke runs one operation.
func (p *Plugin) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	if call.Capability == CapMigrate {
		return p.migrate(ctx, call)
	}
	var b binding
	if err := json.Unmarshal(call.Context.Binding, &b); err != nil || b.DataSource.Adapter == "" {
		return plugin.Refused(errcode.StoreBindingMissing, "the store plugin needs the binding the kernel resolves for the step's data source")
	}
	if path := b.DataSource.DatabasePath; path != "" && !filepath.IsAbs(path) {
		// A binding names its file as the operator wrote it, relative to
		// the workspace.
		if call.Context.WorkspaceRoot == "" {
			return plugin.Refused(errcode.StoreBindingMissing, "the binding names a workspace-relative database_path, but the call names no workspace root")
		}
		b.DataSource.DatabasePath = filepath.Join(call.Context.WorkspaceRoot, path)
	}
	var req request
	if err := json.Unmarshal(call.Input, &req); err != nil {
		return plugin.Refused(errcode.StoreRequestInvalid, "the operation's inputs are not an operation envelope: "+err.Error())
	}
	limit := 0 // the driver's default page
	if req.Limit != nil {
		if *req.Limit == 0 {
			err := driver.Errorf(errcode.InvalidRequest, "limit must be 1..%d; omit it for the default page of %d", driver.MaxPageEvents, driver.DefaultPageEvents)
			return failure(driver.Failure("", call.Capability, driver.StreamID{Source: b.DataSource.Ref, Resource: req.Resource, Key: req.AggregateID}, err), err)
		}
		limit = *req.Limit
	}
	if clock := call.Context.Clock; !clock.IsZero() {
		p.clock.Store(&clock)
	}
	d, err := p.driverFor(ctx, &b, call.Context.Credentials)
	if err != nil {
		return failure(driver.Failure("", call.Capability, driver.StreamID{Source: b.DataSource.Ref}, err), err)
	}
	source := b.DataSource.Ref
	if source == "runx:data-source:workspace" {
		// The workspace store places each package's streams under it.
		source = "project:" + b.Package
	}
	res, err := resourceFor(&b, req.Resource)
	if err != nil {
		return failure(driver.Failure(d.Provider(), call.Capability, driver.StreamID{Source: source, Resource: req.Resource, Key: req.AggregateID}, err), err)
	}
	stream := driver.Stream{Source: source, Resource: res, Key: req.AggregateID}
	var packet any
	switch call.Capability {
	case CapAppend:
		r, e := d.Append(ctx, driver.AppendRequest{Stream: stream, ExpectedVersion: req.ExpectedVersion, IdempotencyKey: req.IdempotencyKey, Event: req.Event})
		packet, err = r.Packet(), e
	case CapRead:
		r, e := d.Read(ctx, driver.ReadRequest{Stream: stream, AfterVersion: req.AfterVersion, PreviousAfterVersion: req.PreviousAfterVersion, Limit: limit})
		packet, err = r.Packet(), e
	case CapInspect:
		r, e := d.InspectKey(ctx, driver.InspectRequest{Stream: stream})
		packet, err = r.Packet(), e
	case CapList:
		r, e := d.ListKeys(ctx, driver.ListRequest{Source: source, Resource: res, Cursor: req.Cursor, Limit: limit})
		packet, err = r.Packet(), e
	default:
		return plugin.Refused(errcode.CapabilityNotFound, "the store plugin serves no "+call.Capability)
	}
	if err != nil {
		return failure(driver.Failure(d.Provider(), call.Capability, stream.ID(), err), err)
	}
	out, err := json.Marshal(packet)
	if err != nil {
		return plugin.Failed(errcode.StorePacketInvalid, err.Error())
	}
	return plugin.OK(out, nil)
}

// failure answers a typed failure whose evidence is the failure packet: a
// failed read is never an empty list.
func failure(packet driver.FailurePacket, err error) *plugin.Result {
	evidence, _ := json.Marshal(packet)
	code := driver.CodeOf(err)
	if code == "" {
		code = errcode.ProviderUnavailable
	}
	status := plugin.StatusFailed
	var de *driver.Error
	if errors.As(err, &de) && driver.Refusal(de.Code) {
		status = plugin.StatusRefused
	}
	return &plugin.Result{Status: status, Code: code, Message: err.Error(), Evidence: evidence}
}

// resourceFor holds a request to the binding's declared resources. Only a
// source runx derived itself (an unbound local:// ref, the workspace store)
// takes any resource as an event stream: its binding is the package's own.
func resourceFor(b *binding, name string) (driver.Resource, error) {
	if name == "" {
		return driver.Resource{}, driver.Errorf(errcode.SchemaRequired, "an operation names its resource")
	}
	declared, ok := b.DataSource.Resources[name]
	if !ok {
		if !b.DataSource.Default || len(b.DataSource.Resources) > 0 {
			return driver.Resource{}, driver.Errorf(errcode.SchemaRequired, "data source %s declares no resource %q", b.DataSource.Ref, name)
		}
		declared = resourceBinding{Kind: string(driver.KindEventStream), PartitionKey: "aggregate_id"}
	}
	return driver.Resource{Name: name, Kind: driver.ResourceKind(declared.Kind), PartitionKey: declared.PartitionKey, Secret: declared.Secret, Private: declared.Private}, nil
}

// driverFor opens (once) the driver a binding names.
func (p *Plugin) driverFor(ctx context.Context, b *binding, creds map[string]string) (driver.Driver, error) {
	ds := b.DataSource
	sum := sha256.Sum256([]byte(fmt.Sprint(ds.Adapter, "\x00", ds.DatabasePath, "\x00", ds.Endpoint, "\x00", ds.KeyPrefix, "\x00", creds[CredentialPassword])))
	key := hex.EncodeToString(sum[:])
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.drivers[key]; ok {
		return d, nil
	}
	now := func() time.Time {
		if c := p.clock.Load(); c != nil {
			return *c
		}
		return time.Now()
	}
	var d driver.Driver
	var err error
	switch ds.Adapter {
	case AdapterSQLite:
		d, err = sqlite.Open(ctx, sqlite.Config{Path: ds.DatabasePath, Now: now})
	case AdapterPostgres:
		d, err = postgres.Open(ctx, postgres.Config{URL: ds.Endpoint, Password: creds[CredentialPassword], Now: now})
	case AdapterRedis:
		d, err = redis.Open(ctx, redis.Config{Endpoint: ds.Endpoint, Password: creds[CredentialPassword], KeyPrefix: ds.KeyPrefix, Now: now})
	default:
		return nil, driver.Errorf(errcode.SchemaRequired, "no store driver for adapter %q", ds.Adapter)
	}
	if err != nil {
		return nil, err
	}
	p.drivers[key] = d
	return d, nil
}

const inputSchema = `{"type":"object","properties":{"data_source_ref":{"type":"string"},"resource":{"type":"string"},` +
	`"aggregate_id":{"type":"string"},"expected_version":{"type":"integer","minimum":0},"idempotency_key":{"type":"string"},` +
	`"event":{"type":"object"},"limit":{"type":"integer","minimum":1,"maximum":500},"after_version":{"type":"integer","minimum":0},` +
	`"previous_after_version":{"type":"integer","minimum":0},"cursor":{"type":"string"}}}`
