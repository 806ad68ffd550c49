package testrun

import (
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/sdk/canon"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// providers starts what stands in for a test's providers.mcp, and the
// replay that hands each connector call its answers.
func providers(tc *pkg.TestCase, p *pkg.Package) (*mcpStandIn, *connector.Replay, error) {
	var calls []*pkg.TestMCPCall
	if tc.Providers != nil {
		calls = tc.Providers.MCP
	}
	s, endpoints, err := startMCPStandIn(p, calls)
	if err != nil {
		return nil, nil, err
	}
	r, err := httpReplay(tc, endpoints)
	return s, r, err
}

// httpReplay is a test's providers.http as the kernel hands it to the
// connector.request capability, with the MCP server standing in for each
// connector its providers.mcp names. Every test gets one, empty when it
// declares no exchange: a test run has no live fallback.
func httpReplay(tc *pkg.TestCase, mcp map[string]string) (*connector.Replay, error) {
	var xs []sdk.HTTPExchange
	if tc.Providers != nil {
		for i, x := range tc.Providers.HTTP {
			e := sdk.HTTPExchange{Request: sdk.HTTPRequest{Method: x.Method, URL: x.URL}}
			if x.HasBody {
				raw, err := canon.Canonical(x.Body)
				if err != nil {
					return nil, fmt.Errorf("providers http %d body: %v", i+1, err)
				}
				e.Request.Body = json.RawMessage(raw)
			}
			e.Response = sdk.HTTPResponse{Status: x.Response.Status, Headers: x.Response.Headers, Body: x.Response.Body}
			xs = append(xs, e)
		}
	}
	return connector.NewReplay(xs, mcp), nil
}

// httpFailures holds the run to its declared exchanges: each must have
// answered a request (a declared write is a write the run sent), and
// expect.http_request_counts, when given, to the exact counts.
func httpFailures(tc *pkg.TestCase, r *connector.Replay) []string {
	if tc.Providers == nil || len(tc.Providers.HTTP) == 0 {
		return nil
	}
	counts := r.Counts()
	var out []string
	for i, n := range counts {
		if n == 0 {
			x := tc.Providers.HTTP[i]
			out = append(out, fmt.Sprintf("providers http %d (%s %s) was declared and never requested", i+1, x.Method, x.URL))
		}
	}
	if want := tc.Expect.HTTPRequestCounts; want != nil {
		for i := range want {
			if want[i] != counts[i] {
				out = append(out, fmt.Sprintf("expect http_request_counts %v, but the exchanges answered %v", want, counts))
				break
			}
		}
	}
	return out
}
