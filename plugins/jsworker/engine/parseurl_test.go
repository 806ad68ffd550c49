package engine

import "testing"

func TestParseURL(t *testing.T) {
	cases := []struct {
		in   string
		want ParsedURL
	}{
		{"https://example.com", ParsedURL{"https://example.com/", "https://example.com", "https:", "example.com"}},
		{"HTTP://EXAMPLE.com:80/a?b#c", ParsedURL{"http://example.com/a?b#c", "http://example.com", "http:", "example.com"}},
		{"https://example.com:8443/x", ParsedURL{"https://example.com:8443/x", "https://example.com:8443", "https:", "example.com"}},
		{"https://user:pw@host.io/p", ParsedURL{"https://user:pw@host.io/p", "https://host.io", "https:", "host.io"}},
		{"http://[::1]:8080/", ParsedURL{"http://[::1]:8080/", "http://[::1]:8080", "http:", "[::1]"}},
		{"http://[::1]/", ParsedURL{"http://[::1]/", "http://[::1]", "http:", "[::1]"}},
		// An IPv6 literal is compressed, lower case and bracketed in every
		// field, never an embedded dotted IPv4 address.
		{"http://[0:0:0:0:0:0:0:1]:80/", ParsedURL{"http://[::1]/", "http://[::1]", "http:", "[::1]"}},
		{"https://[2001:DB8:0:0:1:0:0:1]/", ParsedURL{"https://[2001:db8::1:0:0:1]/", "https://[2001:db8::1:0:0:1]", "https:", "[2001:db8::1:0:0:1]"}},
		{"http://[::FFFF:1.2.3.4]/", ParsedURL{"http://[::ffff:102:304]/", "http://[::ffff:102:304]", "http:", "[::ffff:102:304]"}},
		// An internationalised domain is punycode in every field.
		{"https://Bücher.example/", ParsedURL{"https://xn--bcher-kva.example/", "https://xn--bcher-kva.example", "https:", "xn--bcher-kva.example"}},
		{"https://xn--bcher-kva.example/", ParsedURL{"https://xn--bcher-kva.example/", "https://xn--bcher-kva.example", "https:", "xn--bcher-kva.example"}},
		{"http://ＥＸＡＭＰＬＥ.com/", ParsedURL{"http://example.com/", "http://example.com", "http:", "example.com"}},
		// Dot segments are resolved, also written %2e; ".." stops at the root.
		{"https://ex.com/a/./b/../c?q#f", ParsedURL{"https://ex.com/a/c?q#f", "https://ex.com", "https:", "ex.com"}},
		{"https://ex.com/a/%2e%2E/b", ParsedURL{"https://ex.com/b", "https://ex.com", "https:", "ex.com"}},
		{"https://ex.com/a/b/..", ParsedURL{"https://ex.com/a/", "https://ex.com", "https:", "ex.com"}},
		{"https://ex.com/../../x", ParsedURL{"https://ex.com/x", "https://ex.com", "https:", "ex.com"}},
		{"https://ex.com/a%20b/./c", ParsedURL{"https://ex.com/a%20b/c", "https://ex.com", "https:", "ex.com"}},
		{"foo://h/a/../b", ParsedURL{"foo://h/b", "null", "foo:", "h"}},
		{"wss://chat.example/ws", ParsedURL{"wss://chat.example/ws", "wss://chat.example", "wss:", "chat.example"}},
		{"mailto:ada@example.com", ParsedURL{"mailto:ada@example.com", "null", "mailto:", ""}},
		{"urn:isbn:0451450523", ParsedURL{"urn:isbn:0451450523", "null", "urn:", ""}},
		{"git+ssh://Host.example/repo.git", ParsedURL{"git+ssh://Host.example/repo.git", "null", "git+ssh:", "host.example"}},
	}
	for _, c := range cases {
		got, err := ParseURL(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "/just/a/path", "example.com", "//example.com/x", "https://", "http:no-host", " https://a.b", "https://a b.c", "%zz", "http://[fe80::1%25eth0]/", "http://[1.2.3.4]/", "https://xn--a.example/"} {
		if got, err := ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) = %+v, want an error", bad, got)
		}
	}
}
