package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/artifactstore"
)

const evaluatorSkill = `minimum_runx: 0.1.0
methods:
  evaluate:
    inputs:
      subject: { type: string, required: true }
    steps:
      - id: criteria
        tool: verdict.criteria
        inputs:
          checks: [{ id: tests_pass }]
      - id: judge
        tool: { module: judge.mjs }
        inputs: { subject: $input.subject, criteria: $steps.criteria.revision }
        outputs:
          verdict: { type: object, packet: runx.verdict.v1 }
`

const evaluatorModule = `export default function ({ subject, criteria }) {
  return { verdict: { schema: "runx.verdict.v1", subject, criteria, checks: [{ id: "tests_pass", status: "met" }] } };
}
`

// TestReceiptsNameEvaluatorVerdicts: a step whose output is a
// runx.verdict.v1 is an evaluator: runx names it in the verdict
// ({package, method, run}, the step stated none), the step's receipt names
// the verdict as its output/verdict artifact of that packet, the kept
// content is the named verdict, and runx verify --in-toto lists it among
// the subjects by the same digest.
func TestReceiptsNameEvaluatorVerdicts(t *testing.T) {
	e := newRunxEnv(t)
	e.write("ev/SKILL.md", "---\nname: ev\ndescription: Evaluates a release.\n---\nManual.\n")
	e.write("ev/run.yaml", evaluatorSkill)
	e.write("ev/judge.mjs", evaluatorModule)
	subject := sha256Of([]byte("release 1.2.0"))
	var run struct {
		Outcome   string `json:"outcome"`
		RunID     string `json:"run_id"`
		ReceiptID string `json:"receipt_id"`
		Result    struct {
			Verdict struct {
				Subject   string            `json:"subject"`
				Evaluator map[string]string `json:"evaluator"`
			} `json:"verdict"`
		} `json:"result"`
	}
	e.json(&run, "skill", "./ev", "-i", "subject="+subject, "--json")
	want := map[string]string{"package": "ev", "method": "evaluate", "run": run.RunID}
	if run.Outcome != "completed" || run.Result.Verdict.Subject != subject || !sameStrings(run.Result.Verdict.Evaluator, want) {
		t.Fatalf("run: %+v; want the verdict's evaluator %v", run, want)
	}

	read := func(id string) *receipt.Receipt {
		raw, err := os.ReadFile(filepath.Join(e.dir, ".runx", "receipts", strings.Replace(id, ":", "-", 1)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var r receipt.Receipt
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	var judged *receipt.Artifact
	for _, c := range read(run.ReceiptID).Body.Children {
		if r := read(c.ReceiptID); r.Body.StepID == "judge" {
			for i, a := range r.Body.Artifacts {
				if a.Label == "output/verdict" {
					judged = &r.Body.Artifacts[i]
				}
			}
		}
	}
	if judged == nil || judged.Packet != "runx.verdict.v1" {
		t.Fatalf("the judge step's receipt names no runx.verdict.v1 output: %+v", judged)
	}
	st, err := artifactstore.Open(filepath.Join(e.dir, ".runx"))
	if err != nil {
		t.Fatal(err)
	}
	kept, err := os.ReadFile(st.BlobPath(judged.Digest))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Evaluator map[string]string `json:"evaluator"`
	}
	if err := json.Unmarshal(kept, &v); err != nil || !sameStrings(v.Evaluator, want) || sha256Of(kept) != judged.Digest {
		t.Fatalf("the kept verdict %s does not name its evaluator under its digest", kept)
	}

	var env inTotoEnvelope
	e.json(&env, "verify", run.RunID, "--in-toto")
	if !strings.Contains(decodeStatement(t, env), `{"digest":{"sha256":"`+strings.TrimPrefix(judged.Digest, "sha256:")+`"},"name":"`+judged.Ref+`"}`) {
		t.Fatal("the in-toto statement does not name the verdict among its subjects")
	}
}

func sameStrings(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

// decodeStatement is an envelope's payload, the statement's JSON.
func decodeStatement(t *testing.T, env inTotoEnvelope) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
