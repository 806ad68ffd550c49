package installed

import (
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

func TestParseRegistryRef(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		code errcode.Code
		want RegistryRef
	}{
		{in: "registry:acme/weather@1.0.0", ok: true, want: RegistryRef{"acme", "weather", "1.0.0"}},
		{in: "registry:acme/weather", ok: true, want: RegistryRef{"acme", "weather", ""}},
		{in: "acme/weather@1.2.3-rc.1", ok: true, want: RegistryRef{"acme", "weather", "1.2.3-rc.1"}},
		{in: "acme/weather", ok: true, want: RegistryRef{"acme", "weather", ""}},
		{in: "runx/changelog"},
		{in: "./child"},
		{in: "../child"},
		{in: "/abs/child"},
		{in: "weather"},
		{in: "a/b/c"},
		{in: "registry:acme", ok: true, code: errcode.RegistryRefInvalid},
		{in: "registry:Acme/weather", ok: true, code: errcode.RegistryRefInvalid},
		{in: "registry:acme/../x", ok: true, code: errcode.RegistryRefInvalid},
		{in: "acme/weather@latest", ok: true, code: errcode.RegistryRefInvalid},
		{in: "acme/we_ather@1.0.0", ok: true, code: errcode.RegistryRefInvalid},
		{in: "acme/-x@1.0.0", ok: true, code: errcode.RegistryRefInvalid},
	} {
		got, ok, err := ParseRegistryRef(c.in)
		code := errcode.Code("")
		if err != nil {
			code = contract.CodeOf(err)
		}
		if ok != c.ok || code != c.code {
			t.Errorf("%q: ok %v err %v; want ok %v code %q", c.in, ok, err, c.ok, c.code)
			continue
		}
		if c.code == "" && ok && got != c.want {
			t.Errorf("%q: %+v; want %+v", c.in, got, c.want)
		}
	}
}
