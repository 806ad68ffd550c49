package redis

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// maxStale bounds how often an append recomputes against a head that moved
// under it before giving up on a stream too contended to append to.
const maxStale = 64

// proofTimeout bounds proving the outcome of an append whose answer was lost.
const proofTimeout = 15 * time.Second

var errContended = errors.New("the stream's head moved under every attempt")

// Append runs the append script: one round trip when the head cache is warm.
func (d *Driver) Append(ctx context.Context, req driver.AppendRequest) (driver.AppendResult, error) {
	p, err := driver.PrepareAppend(req, d.limits)
	if err != nil {
		return driver.AppendResult{}, err
	}
	leave, err := d.enter()
	if err != nil {
		return driver.AppendResult{}, err
	}
	defer leave()
	k := keysFor(d.cfg.KeyPrefix, p.Stream)
	expected := ""
	if p.ExpectedVersion != nil {
		expected = strconv.FormatInt(*p.ExpectedVersion, 10)
	}
	idemValueFor := func(version int64) string { return strconv.FormatInt(version, 10) + sep + p.EventDigest }
	unlock, err := d.locks.lock(ctx, k.id)
	if err != nil {
		return driver.AppendResult{}, d.failure("append", driver.CommitNotSent, err)
	}
	defer unlock()
	snapshot := d.heads.get(k.id)
	for attempt := range maxStale {
		if err := ctx.Err(); err != nil {
			return driver.AppendResult{}, d.failure("append", driver.CommitNotSent, err)
		}
		if attempt > 1 {
			// Another process keeps moving the head: back off a little, with
			// jitter, so that the appenders stop arriving in lockstep.
			backoff := time.NewTimer(time.Duration(rand.Int64N(int64(attempt) * int64(200*time.Microsecond))))
			select {
			case <-backoff.C:
			case <-ctx.Done():
				backoff.Stop()
				return driver.AppendResult{}, d.failure("append", driver.CommitNotSent, ctx.Err())
			}
		}
		head, ok := decodeHead(snapshot)
		if !ok {
			snapshot, head = "", headRecord{projection: driver.GenesisProjection}
		}
		version := head.version + 1
		projection, err := driver.NextProjection(head.projection, p.EventDigest)
		if err != nil {
			return driver.AppendResult{}, err
		}
		at := driver.CommitTime(d.now())
		newHead := encodeHead(version, projection, p.EventType, p.EventDigest, at)
		reply, err := d.runAppend(ctx, k, expected, p.IdempotencyKey, p.EventDigest, p.Stream.Key, snapshot,
			encodeElement(version, at, p, projection), newHead, idemValueFor(version))
		if err != nil {
			return d.appendFailed(ctx, p, k, err)
		}
		status, arg := reply[0], ""
		if len(reply) > 1 {
			arg = reply[1]
		}
		switch status {
		case "committed":
			d.heads.put(k.id, newHead)
			return p.Result(Provider, version, projection, at, false), nil
		case "replayed":
			e, ok := decodeElement(arg)
			if !ok || e.Digest != p.EventDigest || e.IdempotencyKey != p.IdempotencyKey {
				return driver.AppendResult{}, corrupt("event")
			}
			return p.Result(Provider, e.Version, e.ProjectionDigest, e.CommittedAt, true), nil
		case "stale":
			snapshot = arg
			d.heads.put(k.id, arg)
			continue
		case string(errcode.VersionConflict), string(errcode.IdempotencyConflict):
			h, ok := decodeHead(arg)
			if !ok {
				return driver.AppendResult{}, corrupt("stream head")
			}
			d.heads.put(k.id, arg)
			if status == string(errcode.IdempotencyConflict) {
				return driver.AppendResult{}, driver.IdempotencyConflict(h.version)
			}
			return driver.AppendResult{}, driver.VersionConflict(*p.ExpectedVersion, h.version)
		}
		return driver.AppendResult{}, corrupt("stream (" + status + ")")
	}
	return driver.AppendResult{}, d.failure("append", driver.CommitNotCommitted, errContended)
}

func (d *Driver) runAppend(ctx context.Context, k streamKeys, args ...any) ([]string, error) {
	// Once sent, the script runs detached from the caller's cancellation: an
	// effect in flight runs to its end and reports what happened. The
	// client's read timeout (CommitTimeout) bounds it.
	reply, err := appendLua.Run(context.WithoutCancel(ctx), d.client, []string{k.events, k.idem, k.heads, k.keys}, args...).StringSlice()
	if err == nil && len(reply) == 0 {
		return nil, corrupt("script answer")
	}
	return reply, err
}

// appendFailed classifies a failed script call by what it proves.
func (d *Driver) appendFailed(ctx context.Context, p *driver.PreparedAppend, k streamKeys, err error) (driver.AppendResult, error) {
	var stored *driver.Error
	if errors.As(err, &stored) {
		return driver.AppendResult{}, err
	}
	if notSent(err) {
		return driver.AppendResult{}, d.failure("append", driver.CommitNotSent, err)
	}
	if refusedBeforeRunning(err) {
		return driver.AppendResult{}, d.failure("append", driver.CommitNotCommitted, err)
	}
	if wrongType(err) {
		// The script reads every key before it writes, so a key of the wrong
		// type stopped it before any write.
		return driver.AppendResult{}, corrupt("key (one of the stream's keys holds another type)").
			WithEvidence(driver.EvidenceCommitState, driver.CommitNotCommitted)
	}
	return d.prove(ctx, p, k, err)
}

// prove settles an append whose answer was lost by reading its idempotency
// key back. Found is a commit. Absent is not proof of none: Redis offers no
// way to fence another connection's command that may still be on its way,
// so the append fails closed as ambiguous and a retry with the same key
// settles it.
func (d *Driver) prove(ctx context.Context, p *driver.PreparedAppend, k streamKeys, cause error) (driver.AppendResult, error) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), proofTimeout)
	defer cancel()
	unknown := d.failure("append", driver.CommitUnknown, cause)
	value, err := d.client.HGet(pctx, k.idem, p.IdempotencyKey).Result()
	if err != nil {
		return driver.AppendResult{}, unknown
	}
	version, digest, ok := strings.Cut(value, sep)
	n, perr := strconv.ParseInt(version, 10, 64)
	if !ok || perr != nil || n <= 0 {
		return driver.AppendResult{}, corrupt("idempotency record")
	}
	if digest != p.EventDigest {
		current := n
		if h, err := d.client.HGet(pctx, k.heads, p.Stream.Key).Result(); err == nil {
			if rec, ok := decodeHead(h); ok {
				current = rec.version
			}
		}
		return driver.AppendResult{}, driver.IdempotencyConflict(current)
	}
	elem, err := d.client.LIndex(pctx, k.events, n-1).Result()
	if err != nil {
		return driver.AppendResult{}, unknown
	}
	e, ok := decodeElement(elem)
	if !ok || e.Digest != p.EventDigest {
		return driver.AppendResult{}, corrupt("event")
	}
	return p.Result(Provider, e.Version, e.ProjectionDigest, e.CommittedAt, false), nil
}

// notSent: the command never left the client.
func notSent(err error) bool {
	if errors.Is(err, goredis.ErrClosed) || errors.Is(err, goredis.ErrPoolTimeout) || errors.Is(err, goredis.ErrPoolExhausted) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// refusedBeforeRunning: Redis answered with an error it gives before a
// script runs (loading, busy, auth, cluster redirection, read-only replica).
func refusedBeforeRunning(err error) bool {
	var rerr goredis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	msg := rerr.Error()
	for _, prefix := range []string{"LOADING", "BUSY", "NOSCRIPT", "MASTERDOWN", "READONLY", "NOAUTH", "WRONGPASS",
		"NOPERM", "CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

func wrongType(err error) bool {
	var rerr goredis.Error
	return errors.As(err, &rerr) && strings.Contains(rerr.Error(), "WRONGTYPE")
}
