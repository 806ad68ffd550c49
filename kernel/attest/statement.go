package attest

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// The names an attestation is read by.
const (
	// StatementType is in-toto's Statement, version 1.
	StatementType = "https://in-toto.io/Statement/v1"
	// PayloadType is the DSSE payload type of an in-toto Statement.
	PayloadType = "application/vnd.in-toto+json"
	// PredicateType names runx's predicate: a receipt tree.
	PredicateType = "https://runx.ai/attestations/receipt-tree/v1"
)

// MaxReceiptBytes bounds the receipts one attestation carries: the
// envelope is built and signed in memory, and its payload is base64 of
// the whole statement.
const MaxReceiptBytes = 64 << 20

// Statement is an in-toto Statement v1 about a receipt tree. Fields are
// in JCS member order.
type Statement struct {
	Type          string    `json:"_type"`
	Predicate     Predicate `json:"predicate"`
	PredicateType string    `json:"predicateType"`
	Subject       []Subject `json:"subject"`
}

// Subject is one thing the statement is about, by digest.
type Subject struct {
	Digest map[string]string `json:"digest"`
	Name   string            `json:"name"`
}

// Predicate is the receipt tree: every receipt, whole and signed, the
// root first and then depth first in the order each parent commits its
// children, so a reader checks each receipt's own signature and each
// parent's commitments without the store.
type Predicate struct {
	Receipts []json.RawMessage `json:"receipts"`
	Root     string            `json:"root"`
}

// Getter reads one receipt and its stored canonical bytes.
type Getter func(id string) (*receipt.Receipt, []byte, error)

// Attest states the tree under receipt id as an in-toto Statement in a
// DSSE envelope signed with key. rep is the verification of the tree id
// belongs to (receipt.Verify from its root), and only a tree that verified
// is attested, only with the key that signed id: a verifier checks the
// envelope under the key the receipt names.
func Attest(ctx context.Context, get Getter, rep receipt.Report, id string, key ed25519.PrivateKey) (Envelope, error) {
	if rep.Status != receipt.StatusVerified {
		return Envelope{}, contract.Errorf(errcode.AttestationUnverified, "receipt tree %s is %s, so runx attests nothing about it; runx verify %s names its problems", rep.ReceiptID, rep.Status, rep.ReceiptID)
	}
	in, err := reaches(ctx, get, rep.ReceiptID, id)
	if err != nil {
		return Envelope{}, err
	}
	if !in {
		return Envelope{}, contract.Errorf(errcode.AttestationUnverified, "receipt %s is not in the tree %s that was verified; runx attests only what it verified", id, rep.ReceiptID)
	}
	st, signer, err := tree(ctx, get, id, MaxReceiptBytes)
	if err != nil {
		return Envelope{}, err
	}
	pub, _ := key.Public().(ed25519.PublicKey)
	if mine := receipt.KeyID(pub); signer != mine {
		return Envelope{}, contract.Errorf(errcode.AttestationKeyMismatch, "receipt %s was signed by key %s, and this runx home's key is %s; only the key that signed a receipt attests it", id, signer, mine)
	}
	payload, err := canon.Canonical(st)
	if err != nil {
		return Envelope{}, fmt.Errorf("encode the statement: %w", err)
	}
	return Sign(PayloadType, payload, key, receipt.KeyID(pub)), nil
}

// tree reads the tree under root into a statement, within the bounds a
// verifier holds a tree to and maxBytes of receipts, and returns the key id
// that signed the root.
func tree(ctx context.Context, get Getter, root string, maxBytes int) (*Statement, string, error) {
	type at struct {
		id    string
		depth int
	}
	st := &Statement{Type: StatementType, PredicateType: PredicateType, Predicate: Predicate{Root: root}}
	var list []Subject
	seen := map[string]bool{}
	addSubject := func(name, digest string) {
		hex, ok := canon.DigestHex(digest)
		if !ok || seen[name+"\x00"+hex] {
			return
		}
		seen[name+"\x00"+hex] = true
		list = append(list, Subject{Name: name, Digest: map[string]string{"sha256": hex}})
	}
	var signer string
	total := 0
	visited := map[string]bool{root: true}
	stack := []at{{root, 0}}
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		r, raw, err := get(cur.id)
		if err != nil {
			return nil, "", fmt.Errorf("read receipt %s: %w", cur.id, err)
		}
		total += len(raw)
		if total > maxBytes || len(st.Predicate.Receipts) >= receipt.MaxTreeReceipts {
			return nil, "", contract.Errorf(errcode.AttestationTooLarge, "receipt tree %s holds more than %d bytes or %d receipts; an attestation carries at most that", root, maxBytes, receipt.MaxTreeReceipts)
		}
		st.Predicate.Receipts = append(st.Predicate.Receipts, json.RawMessage(raw))
		if cur.id == root {
			signer = r.Signature.KeyID
			addSubject("receipt", root)
			addSubject("output", r.Body.OutputDigest)
		}
		for _, a := range r.Body.Artifacts {
			name := a.Ref
			if name == "" {
				name = cur.id + "/" + a.Label
			}
			addSubject(name, a.Digest)
		}
		if cur.depth == receipt.MaxTreeDepth && len(r.Body.Children) > 0 {
			return nil, "", contract.Errorf(errcode.AttestationTooLarge, "receipt tree %s is deeper than %d levels", root, receipt.MaxTreeDepth)
		}
		for i := len(r.Body.Children) - 1; i >= 0; i-- {
			c := r.Body.Children[i].ReceiptID
			if !visited[c] {
				visited[c] = true
				stack = append(stack, at{c, cur.depth + 1})
			}
		}
	}
	slices.SortFunc(list, func(a, b Subject) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Digest["sha256"], b.Digest["sha256"])
	})
	st.Subject = list
	return st, signer, nil
}

// reaches reports whether the tree under root holds id, walking only
// commitments, within the bound a verifier holds a tree to.
func reaches(ctx context.Context, get Getter, root, id string) (bool, error) {
	stack := []string{root}
	seen := map[string]bool{root: true}
	for len(stack) > 0 && len(seen) <= receipt.MaxTreeReceipts {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cur == id {
			return true, nil
		}
		r, _, err := get(cur)
		if err != nil {
			return false, fmt.Errorf("read receipt %s: %w", cur, err)
		}
		for _, c := range r.Body.Children {
			if !seen[c.ReceiptID] {
				seen[c.ReceiptID] = true
				stack = append(stack, c.ReceiptID)
			}
		}
	}
	return false, nil
}
