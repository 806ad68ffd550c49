package engine

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
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

// hostProfile maps a special URL's domain the way the WHATWG URL standard
// does (UTS #46, non-transitional, no STD3 rules, hyphens unchecked): to
// lower-case ASCII, an internationalised label to its punycode form.
var hostProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false), idna.StrictDomainName(false), idna.CheckHyphens(false))

// ParseURL parses an absolute URL the way Runx.parseUrl does: net/url, with
// the WHATWG normalisations a module author expects. The scheme is lower
// case; a special URL's host is a domain in punycode (IDN labels converted)
// or an IPv6 literal in its shortest form, in brackets wherever it appears
// (href, origin and hostname alike); its default port is dropped; "." and
// ".." segments of any hierarchical path are resolved; "/" is the empty path
// of a special URL. It is pure, so the same text always gives the same
// answer on every host.
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
	if u.Opaque == "" && strings.HasPrefix(u.EscapedPath(), "/") {
		escaped := removeDotSegments(u.EscapedPath())
		if u.Path, err = url.PathUnescape(escaped); err != nil {
			return ParsedURL{}, err
		}
		u.RawPath = escaped
	}
	defaultPort, special := specialPorts[u.Scheme]
	if !special {
		return ParsedURL{Href: u.String(), Origin: "null", Protocol: u.Scheme + ":", Hostname: strings.ToLower(u.Hostname())}, nil
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return ParsedURL{}, errors.New("a " + u.Scheme + " URL needs a host")
	}
	host, err := specialHost(u.Hostname())
	if err != nil {
		return ParsedURL{}, err
	}
	port := u.Port()
	if port == defaultPort {
		port = ""
	}
	hostPort := host
	if port != "" {
		hostPort = host + ":" + port
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

// specialHost is a special URL's host as the URL standard serialises it: an
// IPv6 literal compressed and bracketed, a domain through UTS #46.
func specialHost(h string) (string, error) {
	if strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", errors.New("the host [" + h + "] is not an IPv6 address")
		}
		return ipv6Text(a), nil
	}
	host, err := hostProfile.ToASCII(h)
	if err != nil || host == "" {
		return "", errors.New("the host " + h + " is not a valid domain")
	}
	return host, nil
}

// ipv6Text serialises an IPv6 address as the URL standard does: bracketed,
// lower-case hex pieces, the first longest run of two or more zero pieces
// compressed to "::", never an embedded dotted IPv4 address.
func ipv6Text(a netip.Addr) string {
	b := a.As16()
	var pieces [8]uint16
	for i := range pieces {
		pieces[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	start, n := -1, 1
	for i := 0; i < 8; {
		if pieces[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && pieces[j] == 0 {
			j++
		}
		if j-i > n {
			start, n = i, j-i
		}
		i = j
	}
	var sb strings.Builder
	sb.WriteByte('[')
	for i := 0; i < 8; i++ {
		if i == start {
			sb.WriteString("::")
			i += n - 1
			continue
		}
		if i > 0 && i != start+n {
			sb.WriteByte(':')
		}
		sb.WriteString(strconv.FormatUint(uint64(pieces[i]), 16))
	}
	sb.WriteByte(']')
	return sb.String()
}

// removeDotSegments resolves "." and ".." segments (also written %2e) of an
// escaped absolute path as the URL standard's path parser does: ".." never
// climbs above the root, and a final "." or ".." leaves a trailing slash.
func removeDotSegments(p string) string {
	segs := strings.Split(p[1:], "/")
	out := make([]string, 0, len(segs))
	for i, seg := range segs {
		last := i == len(segs)-1
		switch strings.ToLower(seg) {
		case ".", "%2e":
			if last {
				out = append(out, "")
			}
		case "..", ".%2e", "%2e.", "%2e%2e":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}
