package driver

import (
	"encoding/base64"
	"encoding/json"

	"github.com/runxhq/runx/sdk/errcode"
)

// ListPlan is a validated stream-head listing. The driver fetches up to
// Limit+1 heads of the resource whose keys sort after AfterKey in byte order
// (ascending), so that Finish can tell whether more exist.
type ListPlan struct {
	Source   string
	Resource Resource
	AfterKey string // "" for the first page
	Limit    int
}

// PrepareList validates a listing and opens its cursor.
func PrepareList(req ListRequest, lim Limits) (*ListPlan, error) {
	if err := validateSourceAndResource(req.Source, req.Resource); err != nil {
		return nil, err
	}
	limit, err := lim.pageLimit(req.Limit)
	if err != nil {
		return nil, err
	}
	p := &ListPlan{Source: req.Source, Resource: req.Resource, Limit: limit}
	if req.Cursor != "" {
		key, err := decodeCursor(req.Cursor, p.scope())
		if err != nil {
			return nil, err
		}
		p.AfterKey = key
	}
	return p, nil
}

// Finish builds the page from the heads the driver fetched.
func (p *ListPlan) Finish(provider string, heads []Head) (ListResult, error) {
	if len(heads) > p.Limit+1 {
		return ListResult{}, Errorf(errcode.StoreCorrupt, "the store returned %d heads for a page of %d", len(heads), p.Limit)
	}
	last := p.AfterKey
	for i := range heads {
		h := &heads[i]
		if h.Key <= last || h.Version <= 0 {
			return ListResult{}, Errorf(errcode.StoreCorrupt, "the store's stream heads are out of order or empty")
		}
		last = h.Key
		h.Provider = provider
		h.Source, h.Resource = p.Source, p.Resource.Name
		h.LastEventRef = EventRef(p.Resource.Name, h.Key, h.Version)
	}
	r := ListResult{Provider: provider, Source: p.Source, Resource: p.Resource.Name, Limit: p.Limit, Heads: heads}
	if len(heads) > p.Limit {
		r.Heads = heads[:p.Limit]
		r.HasMore = true
		r.NextCursor = encodeCursor(p.scope(), r.Heads[p.Limit-1].Key)
	}
	return r, nil
}

// scope binds a cursor to the listing it came from, so a cursor from another
// resource or source is refused instead of silently skipping keys.
func (p *ListPlan) scope() string {
	return Digest(canonObject{"data_source_ref": p.Source, "resource": p.Resource.Name}.Bytes())[len(DigestPrefix):][:16]
}

type cursorBody struct {
	V int    `json:"v"`
	Q string `json:"q"`
	K string `json:"k"`
}

const maxCursorBytes = 1024

// encodeCursor makes the opaque keyset cursor: base64url of a small JSON
// document naming the listing and the last key served. It is opaque to
// callers, who must not synthesize it; it is not a secret and not signed,
// because a forged cursor can only name a key of the listing it is bound to.
func encodeCursor(scope, key string) string {
	b, _ := json.Marshal(cursorBody{V: 1, Q: scope, K: key})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s, scope string) (string, error) {
	invalid := Errorf(errcode.CursorInvalid, "cursor is not one this listing issued: start again without a cursor")
	if len(s) > maxCursorBytes {
		return "", invalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return "", invalid
	}
	var c cursorBody
	if json.Unmarshal(raw, &c) != nil || c.V != 1 || !isKey(c.K) {
		return "", invalid
	}
	if c.Q != scope {
		return "", Errorf(errcode.CursorInvalid, "cursor belongs to another source or resource: start this listing without a cursor")
	}
	return c.K, nil
}
