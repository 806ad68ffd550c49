package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const artSkill = `minimum_runx: 0.1.0
methods:
  walk:
    description: Walk large inputs across a pause.
    inputs:
      items: { type: array, required: true }
      doc: { type: object, required: true }
      until: { type: integer, required: true }
    steps:
      - id: walk
        script:
          module: walk.mjs
          max_calls: 20
          calls: { tools: [artifact.read], skills: [./child] }
  open:
    description: Open a retained artifact by its descriptor.
    reach: inputs
    inputs:
      artifact: { type: object, required: true }
    steps:
      - id: open
        tool: artifact.open
        inputs: { artifact: $input.artifact }
`

const artWalk = `export default async function (input, ctx) {
  const first = await ctx.read(input.items[0]);
  await ctx.wait({ until: input.until });
  let doc = null, code = null;
  try { doc = await ctx.read(input.doc); } catch (e) { code = e.code; }
  if (code) return { code };
  const page = await ctx.call("artifact.read", { ref: input.doc.$ref, encoding: "utf8" });
  const child = await ctx.call("skill:./child", { text: input.items[1] });
  return { first: first.length, doc: doc.blob.length, page: page.data, childLength: child.length, docRef: input.doc.$ref };
}
`

type receiptArtifact struct {
	Label     string `json:"label"`
	Ref       string `json:"ref"`
	Digest    string `json:"digest"`
	Bytes     int64  `json:"bytes"`
	MediaType string `json:"media_type"`
}

// stepReceipt reads a receipt the project's store holds, and its artifacts.
func (e *runxEnv) receiptArtifacts(id string) (string, []receiptArtifact) {
	e.t.Helper()
	path := filepath.Join(e.dir, ".runx", "receipts", strings.Replace(id, ":", "-", 1)+".json")
	raw, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	var r struct {
		Body struct {
			Artifacts []receiptArtifact `json:"artifacts"`
		} `json:"body"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		e.t.Fatal(err)
	}
	return path, r.Body.Artifacts
}

func sha256Of(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestScriptInputsAreArtifactsOfTheRun: a script's inputs past 64 KiB are
// artifacts of the run in the project's artifact store. They persist with
// the run across a pause, ctx.read and artifact.read reach them, a later
// step opens one by its descriptor (root, size, digest), the step's receipt
// names each (label, ref, digest, size) under its signature, a call given
// one names it labelled with its input, and a kept content that changed is
// never read as the input. A call that read a page of one names it too.
func TestScriptInputsAreArtifactsOfTheRun(t *testing.T) {
	e := newRunxEnv(t)
	e.write("art/SKILL.md", "---\nname: art\ndescription: Walks large inputs.\n---\nManual.\n")
	e.write("art/run.yaml", artSkill)
	e.write("art/walk.mjs", artWalk)
	e.write("art/child/SKILL.md", "---\nname: child\ndescription: Measures text.\n---\nManual.\n")
	e.write("art/child/run.yaml", "minimum_runx: 0.1.0\nmethods:\n  run:\n    inputs:\n      text: { type: string, required: true }\n    steps:\n      - id: m\n        tool: { module: m.mjs }\n")
	e.write("art/child/m.mjs", `export default function ({ text }) { return { length: text.length }; }`)

	item := func(c string) string { return strings.Repeat(c, 30<<10) }
	itemsList := []string{item("a"), item("b"), item("c")}
	items, _ := json.Marshal(itemsList)
	docRaw, _ := json.Marshal(map[string]string{"blob": strings.Repeat("d", 70<<10)})
	// The walk pauses on a wait whose time must still be ahead when the
	// script reaches it; on a loaded machine the start can take longer
	// than the first budget, and then it is tried with a longer one.
	start := func() (string, int64) {
		for _, budget := range []time.Duration{1500 * time.Millisecond, 5 * time.Second, 15 * time.Second} {
			until := time.Now().Add(budget).UnixMilli()
			var r struct {
				Status string `json:"status"`
				RunID  string `json:"run_id"`
			}
			e.json(&r, "skill", "./art#walk", "--input-json", "items="+string(items), "--input-json", "doc="+string(docRaw), "-i", "until="+strconv.FormatInt(until, 10), "--json")
			if r.Status == "needs_agent" {
				return r.RunID, until
			}
			if time.Now().UnixMilli() < until {
				t.Fatalf("the walk did not pause on its wait: %+v", r)
			}
		}
		t.Fatal("the walk never reached its wait before its time")
		return "", 0
	}
	resume := func(runID string, until int64) (map[string]any, string) {
		time.Sleep(time.Until(time.UnixMilli(until + 20))) // the wait settles only at or after its time
		var r struct {
			Outcome string         `json:"outcome"`
			Result  map[string]any `json:"result"`
			Trace   struct {
				Steps []struct {
					ReceiptID string `json:"receipt_id"`
				} `json:"steps"`
			} `json:"trace"`
			ReceiptID string `json:"receipt_id"`
		}
		e.json(&r, "resume", runID, "--json")
		if r.Outcome != "completed" || len(r.Trace.Steps) != 1 {
			t.Fatalf("resumed: %+v", r)
		}
		return r.Result, r.Trace.Steps[0].ReceiptID + " " + r.ReceiptID
	}

	runID, until := start()
	// Paused: the run's input artifacts are in the store, content by digest.
	docDigest := sha256Of(docRaw)
	blob := filepath.Join(e.dir, ".runx", "artifacts", "blobs", strings.TrimPrefix(docDigest, "sha256:"))
	if got, err := os.ReadFile(blob); err != nil || string(got) != string(docRaw) {
		t.Fatalf("the doc's artifact is not kept by its digest: %v", err)
	}
	result, ids := resume(runID, until)
	stepID, rootID, _ := strings.Cut(ids, " ")
	if result["first"] != float64(30<<10) || result["doc"] != float64(70<<10) || result["page"] != string(docRaw) || result["childLength"] != float64(30<<10) {
		t.Fatalf("the script saw %v %v %v %v", result["first"], result["doc"], len(result["page"].(string)), result["childLength"])
	}
	docRef, _ := result["docRef"].(string)

	// The step's receipt names each input artifact by label.
	stepPath, arts := e.receiptArtifacts(stepID)
	want := map[string][]byte{"input/doc": docRaw}
	for i, it := range itemsList {
		raw, _ := json.Marshal(it)
		want["input/items/"+strconv.Itoa(i)] = raw
	}
	if len(arts) != len(want) {
		t.Fatalf("the step's receipt names %+v", arts)
	}
	for _, a := range arts {
		content, ok := want[a.Label]
		if !ok || a.Digest != sha256Of(content) || a.Bytes != int64(len(content)) || a.MediaType != "application/json" || !strings.HasPrefix(a.Ref, "art_") {
			t.Fatalf("artifact %+v", a)
		}
		if a.Label == "input/doc" && a.Ref != docRef {
			t.Fatalf("the receipt names %s, the script was given %s", a.Ref, docRef)
		}
	}
	// The child call's receipt names the artifact its input was given.
	var hist struct {
		Steps []struct {
			Address   string `json:"address"`
			ReceiptID string `json:"receipt_id"`
			Output    struct {
				Tool string `json:"tool"`
			} `json:"output"`
		} `json:"steps"`
	}
	e.json(&hist, "history", runID, "--json")
	var callReceipt, readReceipt string
	for _, s := range hist.Steps {
		switch s.Output.Tool {
		case "skill:./child":
			callReceipt = s.ReceiptID
		case "artifact.read":
			readReceipt = s.ReceiptID
		}
	}
	if _, callArts := e.receiptArtifacts(callReceipt); len(callArts) != 1 || callArts[0].Label != "input/text" || callArts[0].Digest != sha256Of(want["input/items/1"]) {
		t.Fatalf("the child call's receipt names %+v", callArts)
	}
	// The artifact.read call names the artifact it read a page of.
	if _, readArts := e.receiptArtifacts(readReceipt); len(readArts) != 1 || readArts[0].Label != "read" || readArts[0].Ref != docRef || readArts[0].Digest != docDigest || readArts[0].Bytes != int64(len(docRaw)) {
		t.Fatalf("the read call's receipt names %+v", readArts)
	}

	// A later step opens the artifact by its descriptor, checked against
	// this project's root, size and digest.
	project, err := filepath.EvalSymlinks(filepath.Join(e.dir, ".runx"))
	if err != nil {
		t.Fatal(err)
	}
	descriptor, _ := json.Marshal(map[string]any{"schema": "runx.artifact.v1", "artifact_id": docDigest, "root": sha256Of([]byte(project)),
		"digest": docDigest, "bytes": len(docRaw)})
	var opened struct {
		Outcome string `json:"outcome"`
		Result  struct {
			Digest string `json:"digest"`
			Bytes  int    `json:"bytes"`
			Ref    string `json:"ref"`
		} `json:"result"`
		Trace struct {
			Steps []struct {
				ReceiptID string `json:"receipt_id"`
			} `json:"steps"`
		} `json:"trace"`
	}
	e.json(&opened, "skill", "./art#open", "--input-json", "artifact="+string(descriptor), "--json")
	if o := opened.Result; opened.Outcome != "completed" || o.Digest != docDigest || o.Bytes != len(docRaw) || !strings.HasPrefix(o.Ref, "art_") {
		t.Fatalf("opened %+v", opened)
	}
	// The step that opened it names it, as its output.
	if _, a := e.receiptArtifacts(opened.Trace.Steps[0].ReceiptID); len(a) != 1 || a[0].Label != "output" || a[0].Digest != docDigest || a[0].Ref != opened.Result.Ref || a[0].Bytes != int64(len(docRaw)) {
		t.Fatalf("the open step's receipt names %+v", a)
	}

	// The artifacts are signed: the tree verifies, and an edited one does not.
	var v struct {
		Status string `json:"status"`
	}
	e.json(&v, "verify", rootID, "--json")
	if v.Status != "verified" {
		t.Fatalf("verify: %s", v.Status)
	}
	raw, _ := os.ReadFile(stepPath)
	edited := strings.Replace(string(raw), `"bytes":`+strconv.Itoa(len(docRaw)), `"bytes":`+strconv.Itoa(len(docRaw)-1), 1)
	if edited == string(raw) {
		t.Fatal("the receipt holds no byte count to edit")
	}
	_ = os.Chmod(stepPath, 0o600)
	if err := os.WriteFile(stepPath, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := e.command("verify", rootID, "--json").Output()
	if !strings.Contains(string(out), `"status": "invalid"`) {
		t.Fatalf("an edited artifact verifies: %s", out)
	}

	// A kept content changed while the run waited is not read as the input.
	runID, until = start()
	_ = os.Chmod(blob, 0o600)
	if err := os.WriteFile(blob, []byte(`{"blob":"changed"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if result, _ := resume(runID, until); result["code"] != "script_artifact_damaged" {
		t.Fatalf("a changed artifact read as %v", result)
	}
}

const returnedSkill = `minimum_runx: 0.1.0
methods:
  run:
    description: Read artifacts its calls returned.
    steps:
      - id: take
        script:
          module: take.mjs
          max_calls: 20
          calls: { tools: [artifact.admit] }
`

const returnedModule = `export default async function (input, ctx) {
  const json = await ctx.call("artifact.admit", { path: "data.json" });
  const text = await ctx.call("artifact.admit", { path: "notes.txt" });
  const bin = await ctx.call("artifact.admit", { path: "pixel.png" });
  const value = await ctx.read({ $ref: json.ref });
  const words = await ctx.read({ $ref: text.ref });
  let binCode = null, otherCode = null;
  try { await ctx.read({ $ref: bin.ref }); } catch (e) { binCode = e.code; }
  try { await ctx.read({ $ref: "art_00000000000000000000000000000000" }); } catch (e) { otherCode = e.code; }
  return { value, words, binCode, otherCode, again: { $ref: json.ref } };
}
`

// TestScriptReadsArtifactsItsCallsReturned: a reference a call of the step
// returned (a runx.artifact.v1 descriptor's ref) reads like an input's: JSON
// content as its value, UTF-8 text as a string, held to its digest; other
// content is refused by code, as is a reference no call returned, and an
// output holding one is given back as its content. The step's receipt names
// each artifact its script read.
func TestScriptReadsArtifactsItsCallsReturned(t *testing.T) {
	e := newRunxEnv(t)
	e.write("take/SKILL.md", "---\nname: take\ndescription: Reads what it admitted.\n---\nManual.\n")
	e.write("take/run.yaml", returnedSkill)
	e.write("take/take.mjs", returnedModule)
	e.write("data.json", `{"n": 7, "tags": ["a", "b"]}`)
	e.write("notes.txt", "plain words\n")
	e.write("pixel.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
	var r struct {
		Outcome string `json:"outcome"`
		Result  struct {
			Value     map[string]any `json:"value"`
			Words     string         `json:"words"`
			BinCode   string         `json:"binCode"`
			OtherCode string         `json:"otherCode"`
			Again     map[string]any `json:"again"`
		} `json:"result"`
		Trace struct {
			Steps []struct {
				ReceiptID string `json:"receipt_id"`
			} `json:"steps"`
		} `json:"trace"`
		Error json.RawMessage `json:"error"`
	}
	e.json(&r, "skill", "./take", "--json")
	res := r.Result
	if r.Outcome != "completed" || res.Value["n"] != float64(7) || res.Words != "plain words\n" || res.BinCode != "script_artifact_not_value" ||
		res.OtherCode != "script_reference_unknown" || res.Again["n"] != float64(7) {
		t.Fatalf("the script saw %+v (%s %s)", res, r.Outcome, r.Error)
	}
	_, arts := e.receiptArtifacts(r.Trace.Steps[0].ReceiptID)
	if len(arts) != 2 || arts[0].Label != "call/0" || arts[0].Digest != sha256Of([]byte(`{"n": 7, "tags": ["a", "b"]}`)) || arts[1].Label != "call/1" || arts[1].MediaType != "text/plain" {
		t.Fatalf("the step's receipt names %+v", arts)
	}
}
