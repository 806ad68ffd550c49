package skillctx

import (
	"encoding/json"
	"strconv"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// Receipt is what a turn's receipt names of the context skills its
// request carries: each by its digest and size, labelled context/<index>
// in declared order.
func Receipt(payload json.RawMessage) ([]receipt.Artifact, error) {
	skills, err := FromPayload(payload)
	if err != nil {
		return nil, err
	}
	out := make([]receipt.Artifact, 0, len(skills))
	for i, s := range skills {
		out = append(out, receipt.Artifact{Label: "context/" + strconv.Itoa(i), Digest: s.Digest, Bytes: s.Bytes, MediaType: s.MediaType, Packet: Packet})
	}
	return out, nil
}

// PayloadKey is where a turn's request carries its context skills.
const PayloadKey = "context_skills"

// FromPayload reads the context skills a turn's request carries, each
// held to the digest it is labelled with.
func FromPayload(payload json.RawMessage) ([]Skill, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(payload, &doc); err != nil || doc[PayloadKey] == nil {
		return nil, nil
	}
	var skills []Skill
	if err := json.Unmarshal(doc[PayloadKey], &skills); err != nil {
		return nil, contract.Errorf(errcode.JournalRecordInvalid, "a turn's context skills do not decode: %v", err)
	}
	for _, s := range skills {
		if canon.DigestBytes([]byte(s.Content)) != s.Digest {
			return nil, contract.Errorf(errcode.JournalRecordInvalid, "context skill %s is not the content its digest %s labels", s.Ref, s.Digest)
		}
	}
	return skills, nil
}
