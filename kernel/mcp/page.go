package mcp

import (
	"context"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// PageMax is the most characters one turn_read page carries.
const PageMax = 32000

type readArgs struct {
	RunID   string `json:"run_id"`
	Turn    string `json:"turn"`
	Locator string `json:"locator"`
	Offset  *int   `json:"offset"`
	Limit   *int   `json:"limit"`
}

// Page is one turn_read answer: characters [offset, offset+len(text)) of
// what the locator names, and where the next page starts (nil at the end).
type Page struct {
	Locator    string `json:"locator"`
	Offset     int    `json:"offset"`
	Text       string `json:"text"`
	Total      int    `json:"total"`
	NextOffset *int   `json:"next_offset"`
}

func (s *Server) turnRead(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a readArgs
	if err := decodeArgs(req.Params.Arguments, &a, []string{"run_id", "turn", "locator", "offset", "limit"}); err != nil {
		return errorResult(err), nil
	}
	if a.Locator == "" {
		return errorResult(missing("locator")), nil
	}
	offset, limit := 0, PageMax
	if a.Offset != nil {
		if *a.Offset < 0 {
			return errorResult(contract.Errorf(errcode.ArgumentsInvalid, "argument \"offset\" must be 0 or more")), nil
		}
		offset = *a.Offset
	}
	if a.Limit != nil {
		if *a.Limit < 1 || *a.Limit > PageMax {
			return errorResult(contract.Errorf(errcode.ArgumentsInvalid, "argument \"limit\" must be from 1 to %d", PageMax)), nil
		}
		limit = *a.Limit
	}
	t, _, refused, err := s.openTurn(ctx, a.RunID, a.Turn)
	if err != nil || refused != nil {
		return refused, err
	}
	entries, err := s.contextOf(ctx, t)
	if err != nil {
		return errorResult(err), nil
	}
	for _, e := range entries {
		if e.Locator == a.Locator {
			p := page(textOf(e.data), offset, limit)
			p.Locator = a.Locator
			res := jsonResult(p, false)
			res.Content = append([]mcp.Content{&mcp.TextContent{Text: p.Text}}, res.Content...)
			return res, nil
		}
	}
	return errorResult(contract.Errorf(errcode.LocatorUnknown, "turn %s holds no locator %q; turn_status lists its context, and input:<name> and call:<index> name its inputs and calls", t.Address, a.Locator)), nil
}

// page cuts text at character offsets, never inside a character.
func page(text string, offset, limit int) Page {
	total := utf8.RuneCountInString(text)
	p := Page{Offset: offset, Total: total}
	if offset >= total {
		return p
	}
	start, i := len(text), 0
	for b := range text {
		if i == offset {
			start = b
			break
		}
		i++
	}
	end, n := len(text), 0
	for b := range text[start:] {
		if n == limit {
			end = start + b
			break
		}
		n++
	}
	p.Text = text[start:end]
	if next := offset + utf8.RuneCountInString(p.Text); next < total {
		p.NextOffset = &next
	}
	return p
}
