package gate

import (
	"bytes"
	"encoding/json"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// HostAuthority is what a run holds when no host states an authority: it
// means only that none was stated.
var HostAuthority = json.RawMessage(`{"effects":"allow","reach":"inputs","stated":false}`)

// ParseAuthority reads a host-stated authority; empty means none stated.
func ParseAuthority(raw []byte) (*authority.Authority, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	return authority.Parse(raw)
}

// Recorded reads the authority a run record holds (nil: none stated). A
// record that does not parse is an error, never "none stated".
func Recorded(raw json.RawMessage) (*authority.Authority, error) {
	if len(raw) == 0 || bytes.Equal(raw, HostAuthority) {
		return nil, nil
	}
	a, err := authority.Parse(raw)
	if err != nil {
		return nil, contract.Errorf(errcode.AuthorityRecordInvalid, "the run's recorded authority does not parse: %v", err)
	}
	return a, nil
}

// Digest is the digest a receipt commits of a recorded authority, or ""
// when no host stated one.
func Digest(raw json.RawMessage) (string, error) {
	a, err := Recorded(raw)
	if a == nil || err != nil {
		return "", err
	}
	d, err := a.Digest()
	if err != nil {
		return "", contract.Errorf(errcode.AuthorityRecordInvalid, "the run's recorded authority has no digest: %v", err)
	}
	return d, nil
}
