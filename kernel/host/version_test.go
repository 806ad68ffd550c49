package host

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	sdk "github.com/runxhq/runx/sdk/plugin"
)

// The protocol constant must not drift from the .proto's package version.
func TestProtocolVersionMatchesProto(t *testing.T) {
	raw, err := os.ReadFile("../../sdk/proto/runx/plugin/v1/plugin.proto")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^package runx\.plugin\.v(\d+);`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("no package line in plugin.proto")
	}
	if v, _ := strconv.Atoi(string(m[1])); v != sdk.ProtocolVersion || int(sdk.Handshake.ProtocolVersion) != v {
		t.Fatalf("proto says v%s, sdk says %d / handshake %d", m[1], sdk.ProtocolVersion, sdk.Handshake.ProtocolVersion)
	}
}
