package pkg

import (
	"fmt"
	"net/url"
	"slices"
)

// decodeTestHTTP reads providers.http: exchanges matched on the exact
// method, the canonical final URL and an explicit body identity.
func decodeTestHTTP(d decoder, e *entry) ([]*TestHTTPExchange, error) {
	if e.value.kind != seqNode {
		return nil, d.fail(e.value.pos, "providers http must be a list of {request, response}")
	}
	if len(e.value.items) > MaxTestHTTPExchanges {
		return nil, d.fail(e.value.pos, "providers http holds %d exchanges; at most %d are admitted", len(e.value.items), MaxTestHTTPExchanges)
	}
	var out []*TestHTTPExchange
	for i, n := range e.value.items {
		label := fmt.Sprintf("providers http %d", i+1)
		f, err := d.object(n, label, "request", "response")
		if err != nil {
			return nil, err
		}
		re, pe := f.get("request"), f.get("response")
		if re == nil || pe == nil {
			return nil, d.fail(n.pos, "%s needs a request and a response", label)
		}
		x, err := decodeTestHTTPRequest(d, re, label+" request")
		if err != nil {
			return nil, err
		}
		if x.Response, err = decodeTestHTTPResponse(d, pe, label+" response"); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

func decodeTestHTTPRequest(d decoder, e *entry, label string) (*TestHTTPExchange, error) {
	f, err := d.object(e.value, label, "method", "url", "body")
	if err != nil {
		return nil, err
	}
	x := &TestHTTPExchange{}
	if x.Method, err = d.oneOf(f, "method", label+" method", requestMethods...); err != nil {
		return nil, err
	}
	raw, err := d.nonEmpty(f, "url", label+" url")
	if err != nil {
		return nil, err
	}
	if x.Method == "" || raw == "" {
		return nil, d.fail(e.value.pos, "%s needs a method and a url", label)
	}
	u, err := url.Parse(raw)
	ue := f.get("url")
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return nil, d.fail(ue.value.pos, "%s url %q must be an absolute http or https URL", label, raw)
	case u.User != nil:
		return nil, d.fail(ue.value.pos, "%s url must not hold credentials", label)
	case u.Fragment != "" || slices.Contains([]byte(raw), '#'):
		return nil, d.fail(ue.value.pos, "%s url must not hold a fragment", label)
	}
	// Canonicalized as the native final URL is: query parameters sorted.
	u.RawQuery = u.Query().Encode()
	x.URL = u.String()
	be := f.get("body")
	if be == nil {
		return nil, d.fail(e.value.pos, "%s needs body: none, or body: {json: <value>}", label)
	}
	if s, ok := be.value.value.(string); ok && be.value.kind == scalarNode && s == "none" {
		return x, nil
	}
	bf, err := d.object(be.value, label+" body", "json")
	if err != nil {
		return nil, d.fail(be.value.pos, "%s body must be none or {json: <value>}", label)
	}
	je := bf.get("json")
	if je == nil {
		return nil, d.fail(be.value.pos, "%s body must be none or {json: <value>}", label)
	}
	x.HasBody, x.Body = true, je.value.toValue()
	return x, nil
}

func decodeTestHTTPResponse(d decoder, e *entry, label string) (*TestHTTPResponse, error) {
	f, err := d.object(e.value, label, "status", "headers", "body")
	if err != nil {
		return nil, err
	}
	r := &TestHTTPResponse{}
	se := f.get("status")
	if se == nil {
		return nil, d.fail(e.value.pos, "%s needs a status", label)
	}
	n, ok := se.value.value.(int64)
	if !ok || se.value.kind != scalarNode || n < 100 || n > 599 {
		return nil, d.fail(se.value.pos, "%s status must be an HTTP status, 100 to 599", label)
	}
	r.Status = int(n)
	if he := f.get("headers"); he != nil {
		if r.Headers, err = d.stringMap(he, label+" headers"); err != nil {
			return nil, err
		}
	}
	if r.Body, err = d.text(f, "body", label+" body"); err != nil {
		return nil, err
	}
	if len(r.Body) > MaxTestProcessResult {
		return nil, d.fail(f.get("body").value.pos, "%s body exceeds %d bytes", label, MaxTestProcessResult)
	}
	return r, nil
}
