package script

import (
	"strconv"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// JoinParts takes a script's output past one answer of the worker in its
// parts (the first came with the answer; part asks the worker for the
// i-th), joins them and holds the whole to the byte count and digest the
// worker stated. A worker that no longer holds the parts answers
// replay_needed, which JoinParts hands back for the caller to handle.
func JoinParts(first *Answer, part func(i int) (*Answer, *contract.ErrorBody, contract.StepStatus)) (*Answer, *contract.ErrorBody, contract.StepStatus) {
	invalid := func(why string) (*Answer, *contract.ErrorBody, contract.StepStatus) {
		return nil, &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the script worker's output in parts " + why}, contract.StepFailed
	}
	if first.Part == nil || first.OutputParts < 2 || first.OutputBytes <= 0 {
		return invalid("is announced without its first part")
	}
	out := make([]byte, 0, first.OutputBytes)
	out = append(out, *first.Part...)
	for i := 1; i < first.OutputParts; i++ {
		ans, failure, status := part(i)
		if failure != nil {
			return nil, failure, status
		}
		if ans.Status == AnswerReplayNeeded {
			return ans, nil, contract.StepSuccess
		}
		if ans.Status != AnswerPart || ans.Part == nil {
			return invalid("answered part " + strconv.Itoa(i) + " with something else")
		}
		if len(out)+len(*ans.Part) > first.OutputBytes {
			return invalid("holds more bytes than it stated")
		}
		out = append(out, *ans.Part...)
	}
	if len(out) != first.OutputBytes || canon.DigestBytes(out) != first.OutputDigest {
		return invalid("does not join into the bytes and digest it stated")
	}
	return &Answer{Status: AnswerDone, Output: out}, nil, contract.StepSuccess
}
