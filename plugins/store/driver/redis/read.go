package redis

import (
	"context"
	"errors"

	goredis "github.com/redis/go-redis/v9"

	"github.com/runxhq/runx/sdk/store/driver"
)

// Read reads the head, then a range of the stream's list, in one pipelined
// round trip. It needs no MULTI/EXEC for a consistent page: the list only
// ever grows at its end, so every element up to the head read first is
// already final, and an element appended between the two commands is cut
// off.
func (d *Driver) Read(ctx context.Context, req driver.ReadRequest) (driver.ReadResult, error) {
	plan, err := driver.PrepareRead(req, d.limits)
	if err != nil {
		return driver.ReadResult{}, err
	}
	leave, err := d.enter()
	if err != nil {
		return driver.ReadResult{}, err
	}
	defer leave()
	if err := ctx.Err(); err != nil {
		return driver.ReadResult{}, d.failure("read", "", err)
	}
	k := keysFor(d.cfg.KeyPrefix, plan.Stream)
	start, stop := int64(-plan.Limit), int64(-1)
	if plan.AfterVersion != nil {
		// The event at version v is at index v-1: the first after the cursor
		// is at index AfterVersion.
		start, stop = *plan.AfterVersion, *plan.AfterVersion+int64(plan.Limit)-1
	}
	var headCmd *goredis.StringCmd
	var listCmd *goredis.StringSliceCmd
	_, err = d.client.Pipelined(ctx, func(pipe goredis.Pipeliner) error {
		headCmd = pipe.HGet(ctx, k.heads, plan.Stream.Key)
		listCmd = pipe.LRange(ctx, k.events, start, stop)
		return nil
	})
	if err != nil && !errors.Is(err, goredis.Nil) {
		return driver.ReadResult{}, d.failure("read", "", err)
	}
	headText, err := headCmd.Result()
	if err != nil && !errors.Is(err, goredis.Nil) {
		return driver.ReadResult{}, d.failure("read", "", err)
	}
	head, ok := decodeHead(headText)
	if !ok {
		return driver.ReadResult{}, corrupt("stream head")
	}
	elems, err := listCmd.Result()
	if err != nil {
		return driver.ReadResult{}, d.failure("read", "", err)
	}
	events := make([]driver.Event, 0, len(elems))
	for _, s := range elems {
		e, ok := decodeElement(s)
		if !ok {
			return driver.ReadResult{}, corrupt("event")
		}
		if e.Version > head.version {
			break // appended after the head was read
		}
		events = append(events, e)
	}
	// A tail taken while appends landed is that many events shorter: still
	// the latest events as of the head, contiguous and ending at it.
	if headText != "" {
		d.heads.put(k.id, headText)
	}
	return plan.Finish(Provider, head.version, head.projection, events)
}

// InspectKey reads the stream's record in the resource's heads hash.
func (d *Driver) InspectKey(ctx context.Context, req driver.InspectRequest) (driver.Head, error) {
	if err := driver.PrepareInspect(req); err != nil {
		return driver.Head{}, err
	}
	leave, err := d.enter()
	if err != nil {
		return driver.Head{}, err
	}
	defer leave()
	if err := ctx.Err(); err != nil {
		return driver.Head{}, d.failure("inspect", "", err)
	}
	k := keysFor(d.cfg.KeyPrefix, req.Stream)
	text, err := d.client.HGet(ctx, k.heads, req.Key).Result()
	if errors.Is(err, goredis.Nil) {
		return driver.EmptyHead(Provider, req.Stream), nil
	}
	if err != nil {
		return driver.Head{}, d.failure("inspect", "", err)
	}
	rec, ok := decodeHead(text)
	if !ok {
		return driver.Head{}, corrupt("stream head")
	}
	return headFrom(req.Stream, rec), nil
}

func headFrom(s driver.Stream, rec headRecord) driver.Head {
	h := driver.EmptyHead(Provider, s)
	h.Version, h.ProjectionDigest = rec.version, rec.projection
	h.LastEventType, h.LastEventDigest, h.CommittedAt = rec.eventType, rec.eventDigest, rec.committedAt
	h.LastEventRef = driver.EventRef(s.Resource.Name, s.Key, rec.version)
	return h
}

// ListKeys pages through the resource's keys index by lex order (byte order:
// every member has score 0), then reads their heads.
func (d *Driver) ListKeys(ctx context.Context, req driver.ListRequest) (driver.ListResult, error) {
	plan, err := driver.PrepareList(req, d.limits)
	if err != nil {
		return driver.ListResult{}, err
	}
	leave, err := d.enter()
	if err != nil {
		return driver.ListResult{}, err
	}
	defer leave()
	if err := ctx.Err(); err != nil {
		return driver.ListResult{}, d.failure("list", "", err)
	}
	headsKey, keysKey := resourceKeys(d.cfg.KeyPrefix, plan.Source, plan.Resource.Name)
	min := "-"
	if plan.AfterKey != "" {
		min = "(" + plan.AfterKey
	}
	keys, err := d.client.ZRangeArgs(ctx, goredis.ZRangeArgs{Key: keysKey, Start: min, Stop: "+", ByLex: true, Count: int64(plan.Limit + 1)}).Result()
	if err != nil {
		return driver.ListResult{}, d.failure("list", "", err)
	}
	if len(keys) == 0 {
		return plan.Finish(Provider, nil)
	}
	records, err := d.client.HMGet(ctx, headsKey, keys...).Result()
	if err != nil {
		return driver.ListResult{}, d.failure("list", "", err)
	}
	heads := make([]driver.Head, len(keys))
	for i, key := range keys {
		text, _ := records[i].(string)
		rec, ok := decodeHead(text)
		if !ok || text == "" {
			return driver.ListResult{}, corrupt("stream head")
		}
		heads[i] = headFrom(driver.Stream{Source: plan.Source, Resource: plan.Resource, Key: key}, rec)
	}
	return plan.Finish(Provider, heads)
}
