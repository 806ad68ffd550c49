package canon

import "testing"

func TestDigest(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		// sha256("{}")
		{"empty object", map[string]any{}, "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
		// sha256(`{"a":1,"b":2}`): key order in the value does not matter.
		{"ordered", map[string]int{"b": 2, "a": 1}, "sha256:43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Digest(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("Digest = %s, want %s", got, tt.want)
			}
			if !ValidDigest(got) {
				t.Fatalf("ValidDigest(%s) = false", got)
			}
		})
	}
}

func TestDigestEqualForEquivalentDocuments(t *testing.T) {
	a, err := CanonicalJSON([]byte(`{"x":1.0,"y":[ "\u00e9" ]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Canonical(map[string]any{"y": []string{"é"}, "x": 1})
	if err != nil {
		t.Fatal(err)
	}
	if DigestBytes(a) != DigestBytes(b) {
		t.Fatalf("equivalent documents digest differently: %s vs %s", a, b)
	}
}

func TestValidDigest(t *testing.T) {
	good := "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
	tests := []struct {
		in   string
		want bool
	}{
		{good, true},
		{"", false},
		{"sha256:", false},
		{good[:len(good)-1], false},
		{good + "0", false},
		{"SHA256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", false},
		{"sha256:44136FA355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", false},
		{"sha512:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", false},
		{"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaffzz", false},
		{"sha256-44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", false},
	}
	for _, tt := range tests {
		if got := ValidDigest(tt.in); got != tt.want {
			t.Errorf("ValidDigest(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if h, ok := DigestHex(good); !ok || h != good[len(DigestPrefix):] {
		t.Errorf("DigestHex(%q) = %q, %v", good, h, ok)
	}
	if _, ok := DigestHex("sha256:nope"); ok {
		t.Error("DigestHex accepted an invalid digest")
	}
}
