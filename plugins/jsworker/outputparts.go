package jsworker

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// A script's output past the 4 MiB one answer of the worker carries comes
// to the kernel in parts of at most 2 MiB, each ending on a character: the
// first with the answer that says the script is done, the rest when the
// kernel asks for them by number under the step's session. The worker
// keeps the parts until the last is taken; a kernel that finds them gone
// (another worker process, or evicted) is told replay_needed and replays.
const (
	answerOutputBytes = 4 << 20
	outputPartBytes   = 2 << 20
	// maxKeptOutputs bounds the outputs a worker keeps waiting to be taken.
	maxKeptOutputs = 4
)

type keptOutput struct {
	session string
	parts   [][]byte
}

var kept struct {
	sync.Mutex
	outputs []*keptOutput // oldest first
}

// splitParts cuts out into parts of at most outputPartBytes, each ending
// where a character ends.
func splitParts(out []byte) [][]byte {
	var parts [][]byte
	for len(out) > 0 {
		end := min(outputPartBytes, len(out))
		for end < len(out) && end > 0 && !utf8.RuneStart(out[end]) {
			end--
		}
		parts = append(parts, out[:end])
		out = out[end:]
	}
	return parts
}

// keepParts keeps a large output's parts under the session and answers
// done with the first.
func keepParts(session string, out []byte) ScriptAnswer {
	parts := splitParts(out)
	kept.Lock()
	for i, k := range kept.outputs {
		if k.session == session {
			kept.outputs = append(kept.outputs[:i], kept.outputs[i+1:]...)
			break
		}
	}
	if len(kept.outputs) >= maxKeptOutputs {
		kept.outputs = kept.outputs[1:]
	}
	kept.outputs = append(kept.outputs, &keptOutput{session: session, parts: parts})
	kept.Unlock()
	sum := sha256.Sum256(out)
	first := string(parts[0])
	return ScriptAnswer{Status: ScriptDone, Part: &first, OutputParts: len(parts), OutputBytes: len(out), OutputDigest: "sha256:" + hex.EncodeToString(sum[:])}
}

// answerPart answers part n of the output kept under the session; the last
// part taken frees them.
func answerPart(session string, n int) *plugin.Result {
	kept.Lock()
	var parts [][]byte
	at := -1
	for i, k := range kept.outputs {
		if k.session == session {
			parts, at = k.parts, i
			break
		}
	}
	if at >= 0 && n == len(parts)-1 {
		kept.outputs = append(kept.outputs[:at], kept.outputs[at+1:]...)
	}
	kept.Unlock()
	if at < 0 || n >= len(parts) {
		return partAnswer(ScriptAnswer{Status: ScriptReplayNeeded})
	}
	part := string(parts[n])
	return partAnswer(ScriptAnswer{Status: ScriptPart, Part: &part})
}

func partAnswer(a ScriptAnswer) *plugin.Result {
	out, err := encodeAnswer(a)
	if err != nil {
		return plugin.Failed(errcode.ModuleCrashed, "js.script could not encode its answer: "+err.Error())
	}
	return plugin.OK(out, nil)
}
