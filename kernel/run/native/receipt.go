package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// The kernel's receipt tools: receipt.prove and receipt.query expose a
// receipt's redacted metadata and its tree's verification; receipt.read
// returns a step's exact retained declared output, once its tree and its
// signed output digest verify. None loads raw invocation inputs, transport
// diagnostics or credentials: a receipt holds only digests of those, and
// the retained output is the step's declared one from this workspace's run
// record.

// Schemas of the receipt tools' answers.
const (
	ReceiptProofSchema = "runx.receipt_proof.v1"
	ReceiptQuerySchema = "runx.receipt_query.v1"
	ReceiptReadSchema  = "runx.receipt_read.v1"
)

// Bounds of the receipt tools.
const (
	receiptQueryDefaultLimit = 100
	receiptQueryMaxLimit     = 1_000
	receiptReadDefaultBytes  = 1 << 20
	receiptReadMaxBytes      = 16 << 20
)

// Refusal codes of the receipt tools.

var receiptIDInput = `"receipt_id":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}`

var receiptProveDefinition = sdk.Definition{
	ID:           "receipt.prove",
	Summary:      "Verify a receipt and the tree it belongs to, and show its redacted metadata (what ran, under which digests, with which outcome; never inputs or outputs).",
	InputSchema:  json.RawMessage(`{"type":"object","required":["receipt_id"],"additionalProperties":false,"properties":{` + receiptIDInput + `}}`),
	OutputSchema: json.RawMessage(`{"type":"object","required":["schema","receipt_id","status","tree","receipt"]}`),
	Effect:       sdk.EffectRead, Approval: sdk.ApprovalNone, Idempotent: true,
	Scopes: []string{"receipt.read"},
}

var receiptQueryDefinition = sdk.Definition{
	ID:      "receipt.query",
	Summary: "List the receipts in this project's store by run, skill, kind or outcome, with their redacted metadata, a page at a time.",
	InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{` +
		`"run_id":{"type":"string"},"skill_name":{"type":"string"},"kind":{"enum":["run","step"]},"outcome":{"type":"string"},` +
		`"roots_only":{"type":"boolean"},"after":{"type":"string","description":"the cursor a previous query returned"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":1000}}}`),
	OutputSchema: json.RawMessage(`{"type":"object","required":["schema","receipts","cursor"]}`),
	Effect:       sdk.EffectRead, Approval: sdk.ApprovalNone, Idempotent: true,
	Scopes: []string{"receipt.read"},
}

var receiptReadDefinition = sdk.Definition{
	ID:      "receipt.read",
	Summary: "Return a step receipt's exact retained declared output from this workspace, after verifying its receipt tree and signed output digest; json_pointer selects a value, and a selection past max_bytes is refused, never cut. Needs reach inputs.",
	InputSchema: json.RawMessage(`{"type":"object","required":["receipt_id"],"additionalProperties":false,"properties":{` + receiptIDInput + `,` +
		`"json_pointer":{"type":"string","description":"RFC 6901 pointer into the output"},` +
		`"max_bytes":{"type":"integer","minimum":1,"maximum":16777216,"description":"most bytes of the selection's canonical JSON; default 1 MiB"}}}`),
	OutputSchema: json.RawMessage(`{"type":"object","required":["schema","receipt_id","run_id","step_id","output_digest","bytes","value"]}`),
	Effect:       sdk.EffectRead, Approval: sdk.ApprovalNone, Idempotent: true,
	Scopes: []string{"receipt.read", "receipt.claim.read"},
}

// ReceiptMetadata is a receipt's redacted body: what ran and how it ended,
// by digest, with its children by reference.
type ReceiptMetadata struct {
	Kind            receipt.Kind `json:"kind"`
	RunID           string       `json:"run_id"`
	SkillName       string       `json:"skill_name"`
	Method          string       `json:"method,omitempty"`
	StepID          string       `json:"step_id,omitempty"`
	StepKind        string       `json:"step_kind,omitempty"`
	Capability      string       `json:"capability,omitempty"`
	Execution       string       `json:"execution,omitempty"`
	Outcome         seal.Outcome `json:"outcome"`
	SealReason      seal.Reason  `json:"seal_reason,omitempty"`
	ErrorCode       errcode.Code `json:"error_code,omitempty"`
	PackageDigest   string       `json:"package_digest,omitempty"`
	ClosureDigest   string       `json:"closure_digest,omitempty"`
	AuthorityDigest string       `json:"authority_digest,omitempty"`
	InputsDigest    string       `json:"inputs_digest,omitempty"`
	OutputDigest    string       `json:"output_digest,omitempty"`
	StartedAt       string       `json:"started_at"`
	SealedAt        string       `json:"sealed_at"`
	Children        []string     `json:"children,omitempty"`
	SignerKeyID     string       `json:"signer_key_id,omitempty"`
}

func metadataOf(r *receipt.Receipt) ReceiptMetadata {
	m := ReceiptMetadata{
		Kind: r.Body.Kind, RunID: r.Body.RunID, SkillName: r.Body.SkillName, Method: r.Body.Method,
		StepID: r.Body.StepID, StepKind: r.Body.StepKind, Capability: r.Body.Capability, Execution: r.Body.Execution,
		Outcome: r.Body.Outcome, SealReason: r.Body.SealReason, ErrorCode: r.Body.ErrorCode,
		PackageDigest: r.Body.PackageDigest, ClosureDigest: r.Body.ClosureDigest, AuthorityDigest: r.Body.AuthorityDigest,
		InputsDigest: r.Body.InputsDigest, OutputDigest: r.Body.OutputDigest, StartedAt: r.Body.StartedAt, SealedAt: r.Body.SealedAt,
		SignerKeyID: r.Signature.KeyID,
	}
	for _, c := range r.Body.Children {
		m.Children = append(m.Children, c.ReceiptID)
	}
	return m
}

// treeFacts is what verification established about a receipt's tree.
type treeFacts struct {
	Status   receipt.VerifyStatus `json:"status"`
	RootID   string               `json:"root_id"`
	Receipts int                  `json:"receipts"`
	Depth    int                  `json:"depth"`
	Problems []receipt.Problem    `json:"problems,omitempty"`
	// Contains: the tree of the receipt's local run record holds it.
	Contains bool `json:"contains"`
}

// Records are the project's records the receipt tools read: its run
// records, its receipt store, and the keys a receipt verifies against.
type Records struct {
	Journal *journal.Journal
	Store   *receipt.Store
	// HomeDir holds the trusted keys; Signer is the kernel's own, trusted
	// beside them.
	HomeDir string
	Signer  *receipt.Signer
}

// trustedKeys are the keys a receipt tree verifies against: the home's
// trusted keys and the kernel's own.
func (rs *Records) trustedKeys() (receipt.KeySet, error) {
	keys, err := receipt.LoadKeySet(rs.HomeDir)
	if err != nil {
		return keys, err
	}
	keys.Add(rs.Signer.PublicKey())
	return keys, nil
}

// proveTree verifies the tree a receipt belongs to: the tree of the root
// run its local run record descends from, which must hold it, or, with no
// local record, the receipt's own subtree.
// storedReceipt is a receipt as the store holds it under the id a call
// asked for: the file may hold a receipt that names itself otherwise.
type storedReceipt struct {
	*receipt.Receipt
	asked string
}

func (rs *Records) proveTree(ctx context.Context, r storedReceipt) (*treeFacts, error) {
	keys, err := rs.trustedKeys()
	if err != nil {
		return nil, err
	}
	if r.asked != r.ID {
		// The file stored under the id asked for holds another receipt:
		// nothing it names (its run, its tree) is trusted. The id asked
		// for is proven alone, which finds the mismatch.
		rep := receipt.Verify(ctx, rs.Store, r.asked, keys, receipt.Limits{})
		return &treeFacts{Status: rep.Status, RootID: r.asked, Receipts: rep.Receipts, Depth: rep.Depth, Problems: rep.Problems, Contains: true}, nil
	}
	root := r.ID
	if rec, err := rs.Journal.GetRun(durable(ctx), r.Body.RunID); err == nil {
		for rec.ParentRunID != "" {
			parent, err := rs.Journal.GetRun(durable(ctx), rec.ParentRunID)
			if err != nil {
				break
			}
			rec = parent
		}
		if rec.ReceiptID != "" {
			root = rec.ReceiptID
		}
	}
	rep := receipt.Verify(ctx, rs.Store, root, keys, receipt.Limits{})
	facts := &treeFacts{Status: rep.Status, RootID: root, Receipts: rep.Receipts, Depth: rep.Depth, Problems: rep.Problems, Contains: root == r.ID}
	if !facts.Contains {
		facts.Contains = rs.treeHolds(root, r.ID, runstate.TreeMaxReceipts)
		if !facts.Contains {
			// A receipt outside the tree it names is proven only alone.
			sub := receipt.Verify(ctx, rs.Store, r.ID, keys, receipt.Limits{})
			facts.Status, facts.RootID, facts.Receipts, facts.Depth, facts.Problems = sub.Status, r.ID, sub.Receipts, sub.Depth, sub.Problems
		}
	}
	return facts, nil
}

// treeHolds walks a verified tree's commitments for id, within the bound.
func (rs *Records) treeHolds(root, id string, bound int) bool {
	queue := []string{root}
	for seen := 0; len(queue) > 0 && seen < bound; seen++ {
		r, _, err := rs.Store.Get(queue[0])
		queue = queue[1:]
		if err != nil {
			continue
		}
		for _, c := range r.Body.Children {
			if c.ReceiptID == id {
				return true
			}
			queue = append(queue, c.ReceiptID)
		}
	}
	return false
}

func (rs *Records) loadReceipt(tool string, inputs map[string]any) (storedReceipt, *contract.ErrorBody) {
	id, bad := stringInput(tool, inputs, "receipt_id")
	if bad != nil {
		return storedReceipt{}, bad
	}
	if id == "" {
		return storedReceipt{}, &contract.ErrorBody{Code: errcode.NativeInputInvalid, Message: tool + " needs receipt_id"}
	}
	r, _, err := rs.Store.Get(id)
	if errors.Is(err, receipt.ErrNotFound) {
		return storedReceipt{}, &contract.ErrorBody{Code: errcode.ReceiptNotFound, Message: fmt.Sprintf("no receipt %s in this project's store", id)}
	}
	if err != nil {
		return storedReceipt{}, contract.BodyOf(err)
	}
	return storedReceipt{Receipt: r, asked: id}, nil
}

func receiptProveTool(ctx context.Context, c *Call, inputs map[string]any) (any, *contract.ErrorBody) {
	if bad := onlyInputs("receipt.prove", inputs, "receipt_id"); bad != nil {
		return nil, bad
	}
	rs := c.Run.Records()
	r, bad := rs.loadReceipt("receipt.prove", inputs)
	if bad != nil {
		return nil, bad
	}
	facts, err := rs.proveTree(ctx, r)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	return asJSONValue(map[string]any{"schema": ReceiptProofSchema, "receipt_id": r.asked, "status": facts.Status, "tree": facts, "receipt": metadataOf(r.Receipt)})
}

func receiptQueryTool(_ context.Context, c *Call, inputs map[string]any) (any, *contract.ErrorBody) {
	const tool = "receipt.query"
	if bad := onlyInputs(tool, inputs, "run_id", "skill_name", "kind", "outcome", "roots_only", "after", "limit"); bad != nil {
		return nil, bad
	}
	filters := map[string]string{}
	for _, name := range []string{"run_id", "skill_name", "kind", "outcome", "after"} {
		v, bad := stringInput(tool, inputs, name)
		if bad != nil {
			return nil, bad
		}
		filters[name] = v
	}
	rootsOnly, _ := inputs["roots_only"].(bool)
	if v, ok := inputs["roots_only"]; ok && v != nil {
		if _, isBool := v.(bool); !isBool {
			return nil, &contract.ErrorBody{Code: errcode.NativeInputInvalid, Message: "receipt.query input roots_only must be a boolean"}
		}
	}
	limit, bad := intInput(tool, inputs, "limit", receiptQueryDefaultLimit, 1, receiptQueryMaxLimit)
	if bad != nil {
		return nil, bad
	}
	start := 0
	if a := filters["after"]; a != "" {
		n, err := strconv.Atoi(a)
		if err != nil || n < 0 {
			return nil, &contract.ErrorBody{Code: errcode.ReceiptCursorInvalid, Message: fmt.Sprintf("cursor %q is not one receipt.query returned", a)}
		}
		start = n
	}
	all, err := c.Run.Records().Store.Index()
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	out := []receipt.IndexEntry{}
	next := len(all)
	for i := start; i < len(all); i++ {
		en := all[i]
		if (filters["run_id"] != "" && en.RunID != filters["run_id"]) || (filters["skill_name"] != "" && en.SkillName != filters["skill_name"]) ||
			(filters["kind"] != "" && string(en.Kind) != filters["kind"]) || (filters["outcome"] != "" && string(en.Outcome) != filters["outcome"]) || (rootsOnly && !en.Root) {
			continue
		}
		if int64(len(out)) == limit {
			next = i
			break
		}
		out = append(out, en)
	}
	return asJSONValue(map[string]any{"schema": ReceiptQuerySchema, "receipts": out, "cursor": strconv.Itoa(next), "more": next < len(all)})
}

func receiptReadTool(ctx context.Context, c *Call, inputs map[string]any) (any, *contract.ErrorBody) {
	const tool = "receipt.read"
	if bad := onlyInputs(tool, inputs, "receipt_id", "json_pointer", "max_bytes"); bad != nil {
		return nil, bad
	}
	// A claim body is protected: only a run that reaches beyond the
	// workspace reads one.
	if c.Step != nil && c.Run.Reach(c.Step) == authority.ReachWorkspace {
		return nil, &contract.ErrorBody{Code: errcode.ReceiptClaimReachRefused, Message: "receipt.read returns protected claim bodies, which a run with reach: workspace cannot access; it needs reach: inputs"}
	}
	pointer, bad := stringInput(tool, inputs, "json_pointer")
	if bad != nil {
		return nil, bad
	}
	maxBytes, bad := intInput(tool, inputs, "max_bytes", receiptReadDefaultBytes, 1, receiptReadMaxBytes)
	if bad != nil {
		return nil, bad
	}
	rs := c.Run.Records()
	r, bad := rs.loadReceipt(tool, inputs)
	if bad != nil {
		return nil, bad
	}
	facts, err := rs.proveTree(ctx, r)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	if facts.Status != receipt.StatusVerified {
		return nil, &contract.ErrorBody{Code: errcode.ReceiptNotVerified, Message: fmt.Sprintf("receipt %s's tree is %s, so nothing it claims is read", r.asked, facts.Status), Detail: facts}
	}
	if r.Body.Kind != receipt.KindStep {
		return nil, &contract.ErrorBody{Code: errcode.NotAStep, Message: fmt.Sprintf("receipt %s is a %s receipt, which signs no assembled result; read its step receipts", r.ID, r.Body.Kind),
			Detail: map[string]any{"children": r.Body.Children, "tree": facts}}
	}
	step, bad := rs.retainedStep(ctx, r.Receipt)
	if bad != nil {
		return nil, bad
	}
	if r.Body.OutputDigest == "" || len(step.Output) == 0 {
		return nil, &contract.ErrorBody{Code: errcode.ReceiptOutputAbsent, Message: fmt.Sprintf("step receipt %s (%s) declares no output", r.ID, r.Body.Outcome)}
	}
	if got := canon.DigestBytes(step.Output); got != r.Body.OutputDigest {
		return nil, &contract.ErrorBody{Code: errcode.ReceiptOutputMismatch, Message: fmt.Sprintf("the retained output of %s digests to %s, not the signed %s", r.ID, got, r.Body.OutputDigest)}
	}
	var value any
	if err := json.Unmarshal(step.Output, &value); err != nil {
		return nil, contract.BodyOf(err)
	}
	if pointer != "" {
		sel, err := selectPointer(value, pointer)
		if err != nil {
			return nil, &contract.ErrorBody{Code: errcode.ReceiptPointerNotFound, Message: fmt.Sprintf("json_pointer %q selects nothing in %s's output: %v", pointer, r.ID, err)}
		}
		value = sel
	}
	raw, err := canon.Canonical(value)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	if int64(len(raw)) > maxBytes {
		return nil, &contract.ErrorBody{Code: errcode.ReceiptSelectionTooLarge, Message: fmt.Sprintf("the selection is %d bytes of JSON, past max_bytes %d; it is refused rather than cut", len(raw), maxBytes)}
	}
	return map[string]any{
		"schema": ReceiptReadSchema, "receipt_id": r.ID, "run_id": r.Body.RunID, "step_id": r.Body.StepID,
		"output_digest": r.Body.OutputDigest, "json_pointer": pointer, "bytes": len(raw), "value": value,
	}, nil
}

// retainedStep is the local run record's step a receipt seals.
func (rs *Records) retainedStep(ctx context.Context, r *receipt.Receipt) (*stepRecord, *contract.ErrorBody) {
	notRetained := &contract.ErrorBody{Code: errcode.NotRetained, Message: fmt.Sprintf("receipt %s is valid, but this workspace holds no run record of its step (run %s); runx neither replays the run nor searches another workspace", r.ID, r.Body.RunID)}
	steps, err := rs.Journal.Steps(durable(ctx), r.Body.RunID)
	if err != nil {
		return nil, notRetained
	}
	for _, s := range steps {
		if s.ReceiptID == r.ID {
			return &stepRecord{Output: s.Output}, nil
		}
	}
	return nil, notRetained
}

type stepRecord struct{ Output json.RawMessage }

// selectPointer resolves an RFC 6901 pointer in a JSON value.
func selectPointer(doc any, pointer string) (any, error) {
	if pointer == "" {
		return doc, nil
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, errors.New("a pointer starts with /")
	}
	cur := doc
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, fmt.Errorf("no member %q", tok)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) || (len(tok) > 1 && tok[0] == '0') {
				return nil, fmt.Errorf("no item %q", tok)
			}
			cur = v[i]
		default:
			return nil, fmt.Errorf("%q goes into a value that holds nothing", tok)
		}
	}
	return cur, nil
}
