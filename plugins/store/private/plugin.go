package private

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runxhq/runx/plugins/store/driver/sqlite"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/store/driver"
)

// Name is the plugin's name; its capabilities are private/*.
const Name = "private"

// Version is the plugin's own version.
const Version = "0.1.0"

// Capability ids.
const (
	CapAppend  = "private/events.append"
	CapRead    = "private/events.read"
	CapInspect = "private/key.inspect"
	CapList    = "private/keys.list"
	CapSearch  = "private/events.search"
)

// Source is the data source every private packet names: the person's one
// store, whichever package reads it.
const Source = "runx:private"

// FileName is the store's file in the directory the kernel names.
const FileName = "private.sqlite"

// dateLayout is how standing dates are written.
const dateLayout = "2006-01-02"

// Plugin serves the private operations, keeping one driver per store.
type Plugin struct {
	mu      sync.Mutex
	drivers map[string]*sqlite.Driver
	// clock is the run clock of the call in flight: commit times come from
	// it, so runx test (a fixed clock) reads back the same packets.
	clock atomic.Pointer[time.Time]
}

// New returns the private plugin.
func New() *Plugin { return &Plugin{drivers: map[string]*sqlite.Driver{}} }

// Info describes the five operations.
func (p *Plugin) Info() plugin.Info {
	def := func(id, summary, effect, schema string) plugin.Definition {
		return plugin.Definition{ID: id, Summary: summary, Effect: effect, Approval: plugin.ApprovalNone, Idempotent: true,
			Roles:       []string{plugin.RolePrivateData},
			Cost:        &plugin.Cost{USDMicro: new(int64), Per: "request", Source: "docs", SourceURL: "https://github.com/runxhq/runx/blob/main/docs/private.md"},
			InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(`{"type":"object","properties":{"schema":{"const":"runx.data.operation_result.v1"}}}`)}
	}
	return plugin.Info{Name: Name, Version: Version, Capabilities: []plugin.Definition{
		def(CapAppend, "Append one event to one of the person's streams (said:<name> or observed:<name>), exactly once per idempotency key; an event with standing {ends_on} holds until that date.", plugin.EffectWrite, appendSchema),
		def(CapRead, "Read one bounded page of one of the person's streams; standing_on (a date, or today) selects the events standing on it.", plugin.EffectRead, readSchema),
		def(CapInspect, "Read one of the person's streams' head.", plugin.EffectRead, inspectSchema),
		def(CapList, "Page through the keys of one of the person's streams.", plugin.EffectRead, listSchema),
		def(CapSearch, "Search one of the person's streams forward for the events holding text and, with standing_on (a date, or today), standing on it.", plugin.EffectRead, searchSchema),
	}}
}

// inputsOf is what each operation takes, and nothing else: an input taken
// and ignored would let a caller believe it held.
var inputsOf = map[string][]string{
	CapAppend:  {"resource", "aggregate_id", "expected_version", "idempotency_key", "event"},
	CapRead:    {"resource", "aggregate_id", "limit", "after_version", "previous_after_version", "standing_on"},
	CapInspect: {"resource", "aggregate_id"},
	CapList:    {"resource", "limit", "cursor"},
	CapSearch:  {"resource", "aggregate_id", "text", "standing_on", "after_version", "limit"},
}

// request is a private operation's inputs.
type request struct {
	Resource             string          `json:"resource"`
	AggregateID          string          `json:"aggregate_id"`
	ExpectedVersion      *int64          `json:"expected_version"`
	IdempotencyKey       string          `json:"idempotency_key"`
	Event                json.RawMessage `json:"event"`
	Limit                *int            `json:"limit"`
	AfterVersion         *int64          `json:"after_version"`
	PreviousAfterVersion *int64          `json:"previous_after_version"`
	Cursor               string          `json:"cursor"`
	StandingOn           string          `json:"standing_on"`
	Text                 *string         `json:"text"`
}

// Invoke runs one operation.
func (p *Plugin) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	var b struct {
		Dir string `json:"dir"`
	}
	if err := json.Unmarshal(call.Context.Binding, &b); err != nil || b.Dir == "" || !filepath.IsAbs(b.Dir) {
		return plugin.Refused(errcode.StoreBindingMissing, "the private plugin needs the store directory the kernel names on a private call")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(call.Input, &fields); err != nil {
		return plugin.Refused(errcode.StoreRequestInvalid, "the operation's inputs are not an object: "+err.Error())
	}
	for name := range fields {
		if !slices.Contains(inputsOf[call.Capability], name) {
			return plugin.Refused(errcode.StoreRequestInvalid, call.Capability+" takes no input "+quote(name)+"; it takes "+strings.Join(inputsOf[call.Capability], ", "))
		}
	}
	var req request
	if err := json.Unmarshal(call.Input, &req); err != nil {
		return plugin.Refused(errcode.StoreRequestInvalid, "the operation's inputs are not a private operation's: "+err.Error())
	}
	res, err := resource(req.Resource)
	if err != nil {
		return plugin.Refused(errcode.PrivateStreamInvalid, err.Error())
	}
	now := call.Context.Clock
	if now.IsZero() {
		now = time.Now().UTC()
	}
	var standingOn string
	if req.StandingOn != "" {
		if standingOn, err = date(req.StandingOn, now); err != nil {
			return plugin.Refused(errcode.PrivateStreamInvalid, err.Error())
		}
	}
	if call.Capability == CapSearch {
		if req.Text == nil && standingOn == "" {
			return plugin.Refused(errcode.StoreRequestInvalid, "a search selects by text, standing_on or both, and names neither; read the stream with private/events.read instead")
		}
		if req.Text != nil && (*req.Text == "" || len(*req.Text) > maxSearchText) {
			return plugin.Refused(errcode.StoreRequestInvalid, "text must be 1..256 bytes")
		}
	}
	if call.Capability == CapAppend {
		if err := checkStanding(req.Event); err != nil {
			return plugin.Refused(errcode.PrivateStreamInvalid, err.Error())
		}
	}
	limit := 0
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > driver.MaxPageEvents {
			return plugin.Refused(errcode.InvalidRequest, "limit must be 1..500; omit it for the default page")
		}
		limit = *req.Limit
	}
	d, err := p.driverFor(ctx, filepath.Join(b.Dir, FileName), now)
	if err != nil {
		return failure(err)
	}
	stream := driver.Stream{Source: Source, Resource: res, Key: req.AggregateID}
	var packet any
	switch call.Capability {
	case CapAppend:
		r, e := d.Append(ctx, driver.AppendRequest{Stream: stream, ExpectedVersion: req.ExpectedVersion, IdempotencyKey: req.IdempotencyKey, Event: req.Event})
		r.Resource = req.Resource
		packet, err = r.Packet(), e
	case CapRead:
		r, e := d.Read(ctx, driver.ReadRequest{Stream: stream, AfterVersion: req.AfterVersion, PreviousAfterVersion: req.PreviousAfterVersion, Limit: limit})
		if standingOn != "" {
			r.Events = standing(r.Events, standingOn)
		}
		r.Resource = req.Resource
		packet, err = r.Packet(), e
	case CapInspect:
		r, e := d.InspectKey(ctx, driver.InspectRequest{Stream: stream})
		r.Resource = req.Resource
		packet, err = r.Packet(), e
	case CapSearch:
		after, text := int64(0), ""
		if req.AfterVersion != nil {
			after = *req.AfterVersion
		}
		if req.Text != nil {
			text = *req.Text
		}
		r, e := search(ctx, d, stream, after, limit, text, standingOn)
		r.Resource = req.Resource
		packet, err = r.Packet(), e
	case CapList:
		r, e := d.ListKeys(ctx, driver.ListRequest{Source: Source, Resource: res, Cursor: req.Cursor, Limit: limit})
		r.Resource = req.Resource
		for i := range r.Heads {
			r.Heads[i].Resource = req.Resource
		}
		packet, err = r.Packet(), e
	default:
		return plugin.Refused(errcode.CapabilityNotFound, "the private plugin serves no "+call.Capability)
	}
	if err != nil {
		return failure(err)
	}
	out, err := json.Marshal(packet)
	if err != nil {
		return plugin.Failed(errcode.StorePacketInvalid, err.Error())
	}
	return plugin.OK(out, nil)
}

// resource is the declared event stream a stream name is kept as: said:x
// and observed:x are held as said/x and observed/x, the store's names
// holding no ':'.
func resource(stream string) (driver.Resource, error) {
	for _, kind := range []string{plugin.PrivateSaid, plugin.PrivateObserved} {
		if name, ok := strings.CutPrefix(stream, kind); ok && name != "" && !strings.ContainsAny(name, ":/") {
			return driver.Resource{Name: strings.TrimSuffix(kind, ":") + "/" + name, Kind: driver.KindEventStream, PartitionKey: "aggregate_id"}, nil
		}
	}
	return driver.Resource{}, errors.New("resource must name a stream said:<name> (the person's exact words) or observed:<name> (what was observed of them), not " + quote(stream))
}

// checkStanding refuses an event whose standing is anything but
// {"ends_on": "YYYY-MM-DD"}.
func checkStanding(event json.RawMessage) error {
	var e struct {
		Standing json.RawMessage `json:"standing"`
	}
	if len(event) == 0 || json.Unmarshal(event, &e) != nil || len(e.Standing) == 0 {
		return nil // the store refuses an event that is no object
	}
	var s map[string]json.RawMessage
	if json.Unmarshal(e.Standing, &s) != nil || len(s) != 1 || s["ends_on"] == nil {
		return errors.New(`event.standing must be {"ends_on": "YYYY-MM-DD"}, the date the standing event ends`)
	}
	var end string
	if json.Unmarshal(s["ends_on"], &end) != nil {
		return errors.New("event.standing.ends_on must be a date, YYYY-MM-DD")
	}
	if _, err := time.Parse(dateLayout, end); err != nil {
		return errors.New("event.standing.ends_on must be a date, YYYY-MM-DD, not " + quote(end))
	}
	return nil
}

// date reads standing_on: a date, or today (the run clock's date).
func date(s string, now time.Time) (string, error) {
	if s == "today" {
		return now.UTC().Format(dateLayout), nil
	}
	if _, err := time.Parse(dateLayout, s); err != nil {
		return "", errors.New("standing_on must be a date, YYYY-MM-DD, or today, not " + quote(s))
	}
	return s, nil
}

// standing keeps the events standing on day: those with an end date after
// it. An event ends on its ends_on date, so on that day it no longer
// stands; an event with no standing is no standing event.
func standing(events []driver.Event, day string) []driver.Event {
	out := events[:0:0]
	for _, e := range events {
		var v struct {
			Standing struct {
				EndsOn string `json:"ends_on"`
			} `json:"standing"`
		}
		if json.Unmarshal(e.Data, &v) == nil && v.Standing.EndsOn > day {
			out = append(out, e)
		}
	}
	return out
}

// driverFor opens (once) the store at path.
func (p *Plugin) driverFor(ctx context.Context, path string, now time.Time) (*sqlite.Driver, error) {
	p.clock.Store(&now)
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.drivers[path]; ok {
		return d, nil
	}
	// The person's data is theirs alone: its directory is 0700, however
	// it was made.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, driver.Errorf(errcode.InvalidConfig, "cannot create the private store's directory: %v", err)
	}
	if err := os.Chmod(filepath.Dir(path), 0o700); err != nil {
		return nil, driver.Errorf(errcode.InvalidConfig, "cannot make the private store's directory private: %v", err)
	}
	// The file is made the person's alone (0600) before SQLite opens it,
	// and its journal files take its mode.
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, driver.Errorf(errcode.InvalidConfig, "cannot create the private store: %v", err)
	}
	f.Close()
	d, err := sqlite.Open(ctx, sqlite.Config{Path: path, Now: p.now})
	if err != nil {
		return nil, err
	}
	p.drivers[path] = d
	return d, nil
}

func (p *Plugin) now() time.Time {
	if c := p.clock.Load(); c != nil {
		return *c
	}
	return time.Now()
}

// failure answers a driver's typed error.
func failure(err error) *plugin.Result {
	code := driver.CodeOf(err)
	if code == "" {
		code = errcode.ProviderUnavailable
	}
	status := plugin.StatusFailed
	var de *driver.Error
	if errors.As(err, &de) && driver.Refusal(de.Code) {
		status = plugin.StatusRefused
	}
	return &plugin.Result{Status: status, Code: code, Message: err.Error()}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// Input schemas: each operation takes its own fields and no other.
const (
	streamProps   = `"resource":{"type":"string","description":"said:<name> or observed:<name>"},"aggregate_id":{"type":"string"}`
	appendSchema  = `{"type":"object","additionalProperties":false,"required":["resource","aggregate_id","event"],"properties":{` + streamProps + `,"expected_version":{"type":"integer","minimum":0},"idempotency_key":{"type":"string"},"event":{"type":"object"}}}`
	readSchema    = `{"type":"object","additionalProperties":false,"required":["resource","aggregate_id"],"properties":{` + streamProps + `,"limit":{"type":"integer","minimum":1,"maximum":500},"after_version":{"type":"integer","minimum":0},"previous_after_version":{"type":"integer","minimum":0},"standing_on":{"type":"string"}}}`
	inspectSchema = `{"type":"object","additionalProperties":false,"required":["resource","aggregate_id"],"properties":{` + streamProps + `}}`
	searchSchema  = `{"type":"object","additionalProperties":false,"required":["resource","aggregate_id"],"properties":{` + streamProps + `,"text":{"type":"string","minLength":1,"maxLength":256},"standing_on":{"type":"string"},"after_version":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1,"maximum":500}}}`
	listSchema    = `{"type":"object","additionalProperties":false,"required":["resource"],"properties":{"resource":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":500},"cursor":{"type":"string"}}}`
)
