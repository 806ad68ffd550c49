package private

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/runxhq/runx/sdk/store/driver"
)

// Search bounds: a search reads forward at most searchPages pages of
// driver.MaxPageEvents events each, and answers where it stopped, so one
// call is bounded however long the stream is; has_more and
// next_after_version continue it.
const maxSearchText = 256

var searchPages = [2]int{10, driver.MaxPageEvents} // pages, events a page

// search reads a stream forward from after, keeping the events whose
// string values hold text (case-insensitive; any event when text is empty)
// and, with standingOn, that stand on that date, until it has limit of
// them or has read searchPages pages. The answer is the read packet of
// the matches: its next_after_version is the last event it read.
func search(ctx context.Context, d driver.Driver, stream driver.Stream, after int64, limit int, text, standingOn string) (driver.ReadResult, error) {
	if limit == 0 {
		limit = driver.DefaultPageEvents
	}
	needle := strings.ToLower(text)
	var out driver.ReadResult
	var matches []driver.Event
	for page := 0; page < searchPages[0]; page++ {
		from := after
		r, err := d.Read(ctx, driver.ReadRequest{Stream: stream, AfterVersion: &from, Limit: searchPages[1]})
		if err != nil {
			return r, err
		}
		out = r
		for i, e := range r.Events {
			if needle == "" || holds(e.Data, needle) {
				if standingOn == "" || len(standing([]driver.Event{e}, standingOn)) == 1 {
					matches = append(matches, e)
				}
			}
			after = e.Version
			if len(matches) == limit {
				out.HasMore = i < len(r.Events)-1 || r.HasMore
				break
			}
		}
		if len(matches) == limit || !r.HasMore {
			break
		}
	}
	out.Events, out.NextAfterVersion, out.Limit = matches, after, limit
	return out, nil
}

// holds reports whether any string value of the event holds needle.
func holds(data json.RawMessage, needle string) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch t := v.(type) {
		case string:
			return strings.Contains(strings.ToLower(t), needle)
		case []any:
			for _, x := range t {
				if walk(x) {
					return true
				}
			}
		case map[string]any:
			for _, x := range t {
				if walk(x) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
