package engine

import (
	"errors"
	"net"
	"net/url"
	"strings"
)

// ParsedURL is what Runx.parseUrl returns to a module.
type ParsedURL struct {
	Href     string
	Origin   string
	Protocol string
	Hostname string
}

// specialPorts are the WHATWG "special" schemes and their default ports. A
// special URL must have a host; its origin is scheme://host[:port]; every
// other scheme has the opaque origin "null".
var specialPorts = map[string]string{
	"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21",
}

var errRelativeURL = errors.New("not an absolute URL")

// ParseURL parses an absolute URL the way Runx.parseUrl does: net/url, with
// the WHATWG normalisations a module author expects (lower-case scheme and
// host, default port dropped, "/" as the empty path of a special URL). It is
// pure, so the same text always gives the same answer on every host.
func ParseURL(raw string) (ParsedURL, error) {
	if strings.TrimSpace(raw) != raw || raw == "" {
		return ParsedURL{}, errRelativeURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ParsedURL{}, err
	}
	if !u.IsAbs() {
		return ParsedURL{}, errRelativeURL
	}
	u.Scheme = strings.ToLower(u.Scheme)
	defaultPort, special := specialPorts[u.Scheme]
	if !special {
		return ParsedURL{Href: u.String(), Origin: "null", Protocol: u.Scheme + ":", Hostname: strings.ToLower(u.Hostname())}, nil
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return ParsedURL{}, errors.New("a " + u.Scheme + " URL needs a host")
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == defaultPort {
		port = ""
	}
	hostPort := host
	if strings.Contains(host, ":") {
		hostPort = "[" + host + "]" // an IPv6 literal keeps its brackets in href and origin
	}
	if port != "" {
		hostPort = net.JoinHostPort(host, port)
	}
	u.Host = hostPort
	if u.Path == "" {
		u.Path = "/"
	}
	return ParsedURL{
		Href:     u.String(),
		Origin:   u.Scheme + "://" + hostPort,
		Protocol: u.Scheme + ":",
		Hostname: host,
	}, nil
}
