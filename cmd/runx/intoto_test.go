package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/internal/testenv"
	"github.com/runxhq/runx/kernel/receipt"
)

// inTotoEnvelope is a DSSE envelope as the DSSE protocol spells it.
type inTotoEnvelope struct {
	Payload     string `json:"payload"`
	PayloadType string `json:"payloadType"`
	Signatures  []struct {
		KeyID string `json:"keyid"`
		Sig   string `json:"sig"`
	} `json:"signatures"`
}

// TestVerifyInTotoAttestsTheReceiptTree: runx verify --in-toto prints the
// run's receipt tree as an in-toto Statement v1 in a DSSE envelope signed
// with the key that signed the receipts, checked here as any DSSE verifier
// would (PAE spelled out from the protocol, not through runx's code): the
// subject is the run's output and its root receipt by sha256, the
// predicate every receipt of the tree as stored. A tree that does not
// verify, or a receipt another home signed, is refused by code.
func TestVerifyInTotoAttestsTheReceiptTree(t *testing.T) {
	e := newRunxEnv(t)
	e.write("hi/SKILL.md", "---\nname: hi\ndescription: Says hi.\n---\nManual.\n")
	e.write("hi/run.yaml", "minimum_runx: 0.1.0\nmethods:\n  say:\n    steps:\n      - id: compose\n        tool: { module: compose.mjs }\n")
	e.write("hi/compose.mjs", "export default function () { return { greeting: 'hi' }; }\n")
	var started struct {
		Outcome   string `json:"outcome"`
		ReceiptID string `json:"receipt_id"`
		RunID     string `json:"run_id"`
	}
	e.json(&started, "skill", "./hi", "--json")
	if started.Outcome != "completed" {
		t.Fatalf("run: %+v", started)
	}
	var env inTotoEnvelope
	e.json(&env, "verify", started.RunID, "--in-toto")

	key, err := receipt.LoadKey(e.home)
	if err != nil {
		t.Fatal(err)
	}
	pub := key.Public().(ed25519.PublicKey)
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil || env.PayloadType != "application/vnd.in-toto+json" || len(env.Signatures) != 1 {
		t.Fatalf("envelope %+v (%v)", env, err)
	}
	sig, _ := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	pae := fmt.Sprintf("DSSEv1 %d %s %d %s", len(env.PayloadType), env.PayloadType, len(payload), payload)
	if !ed25519.Verify(pub, []byte(pae), sig) || env.Signatures[0].KeyID != receipt.KeyID(pub) {
		t.Fatal("the envelope's signature does not verify over PAE under the receipt key")
	}
	var st struct {
		Type          string `json:"_type"`
		PredicateType string `json:"predicateType"`
		Subject       []struct {
			Name   string            `json:"name"`
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
		Predicate struct {
			Root     string            `json:"root"`
			Receipts []json.RawMessage `json:"receipts"`
		} `json:"predicate"`
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		t.Fatal(err)
	}
	rootFile := filepath.Join(e.dir, ".runx", "receipts", strings.Replace(started.ReceiptID, ":", "-", 1)+".json")
	rootRaw, err := os.ReadFile(rootFile)
	if err != nil {
		t.Fatal(err)
	}
	var root receipt.Receipt
	if err := json.Unmarshal(rootRaw, &root); err != nil {
		t.Fatal(err)
	}
	if st.Type != "https://in-toto.io/Statement/v1" || st.Predicate.Root != started.ReceiptID || len(st.Predicate.Receipts) != 1+len(root.Body.Children) {
		t.Fatalf("statement %s %s, %d receipts", st.Type, st.Predicate.Root, len(st.Predicate.Receipts))
	}
	if string(st.Predicate.Receipts[0]) != strings.TrimSpace(string(rootRaw)) {
		t.Fatal("the predicate's first receipt is not the root receipt as stored")
	}
	subjects := map[string]string{}
	for _, s := range st.Subject {
		subjects[s.Name] = "sha256:" + s.Digest["sha256"]
	}
	if subjects["output"] != root.Body.OutputDigest || subjects["receipt"] != started.ReceiptID || root.Body.OutputDigest == "" {
		t.Fatalf("subjects %v; want output %s and receipt %s", subjects, root.Body.OutputDigest, started.ReceiptID)
	}

	// A home that trusts this key but holds another: verified, and not
	// attested by a key that did not sign it.
	other := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(receipt.TrustedKeysDir(other), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(receipt.TrustedKeysDir(other), "first.pub"), []byte(receipt.EncodePublicKey(pub)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := receipt.LoadOrCreateKey(other); err != nil {
		t.Fatal(err)
	}
	verified := e.command("verify", started.RunID, "--json")
	verified.Env = testenv.Env(e.dir, "RUNX_HOME="+other)
	if out, err := verified.Output(); err != nil {
		t.Fatalf("the other home does not verify the tree: %v %s", err, out)
	}
	wantRefused(t, e, []string{"RUNX_HOME=" + other}, started.RunID, "attestation_key_mismatch")

	// A tree that no longer verifies is attested by nobody.
	if err := os.WriteFile(rootFile, []byte(strings.Replace(string(rootRaw), `"skill_name":"hi"`, `"skill_name":"ho"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, e, nil, started.RunID, "attestation_unverified")
}

func wantRefused(t *testing.T, e *runxEnv, env []string, id, code string) {
	t.Helper()
	cmd := e.command("verify", id, "--in-toto", "--json")
	cmd.Env = testenv.Env(e.dir, env...)
	out, err := cmd.Output()
	if err == nil || !strings.Contains(string(out), `"code": "`+code+`"`) {
		t.Fatalf("verify --in-toto: %v, want refused %s:\n%s", err, code, out)
	}
}
