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
		{"http://[::1]:8080/", ParsedURL{"http://[::1]:8080/", "http://[::1]:8080", "http:", "::1"}},
		{"http://[::1]/", ParsedURL{"http://[::1]/", "http://[::1]", "http:", "::1"}},
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
	for _, bad := range []string{"", "/just/a/path", "example.com", "//example.com/x", "https://", "http:no-host", " https://a.b", "https://a b.c", "%zz"} {
		if got, err := ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) = %+v, want an error", bad, got)
		}
	}
}
