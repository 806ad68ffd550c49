package receipt

import "github.com/runxhq/runx/kernel/contract/seal"
import "github.com/runxhq/runx/sdk/errcode"

// Schema names the receipt format; a receipt with another schema is not read.
const Schema = "runx.receipt.v1"

// Receipt is one sealed record: a body and the signature over its canonical
// bytes. ID is the digest of the canonical body, so the id names exactly what
// was signed.
type Receipt struct {
	Body      Body      `json:"body"`
	ID        string    `json:"id"`
	Schema    string    `json:"schema"`
	Signature Signature `json:"signature"`
}

// Body is what a run or a step did, under which package, closure and
// authority, with which outcome, and which child receipts it commits.
//
// Fields are declared in JCS member order (sorted by JSON name), as in every
// type below, so encoding/json already writes a body canonically and sealing
// skips the JCS pass. TestReceiptTypesEncodeCanonically fails if a field is
// added out of order.
type Body struct {
	// Artifacts are the artifacts the unit used or produced (artifact.go).
	Artifacts       []Artifact     `json:"artifacts,omitempty"`
	AuthorityDigest string         `json:"authority_digest,omitempty"`
	Capability      string         `json:"capability,omitempty"`
	Children        []ChildRef     `json:"children,omitempty"`
	ClosureDigest   string         `json:"closure_digest,omitempty"`
	ErrorCode       errcode.Code   `json:"error_code,omitempty"`
	Execution       string         `json:"execution,omitempty"` // native, deterministic_module, trusted_host_process, graph
	Extra           map[string]any `json:"extra,omitempty"`     // later features (approvals etc.)
	InputsDigest    string         `json:"inputs_digest,omitempty"`
	Kind            Kind           `json:"kind"`
	Method          string         `json:"method,omitempty"`
	Outcome         seal.Outcome   `json:"outcome"`
	OutputDigest    string         `json:"output_digest,omitempty"`
	PackageDigest   string         `json:"package_digest,omitempty"`
	Process         *Process       `json:"process,omitempty"`
	// Registry names the signed registry package a run bound (an installed
	// skill): whose, which version and over which bytes.
	Registry   *RegistryPackage `json:"registry,omitempty"`
	RunID      string           `json:"run_id"`
	Runtime    *Runtime         `json:"runtime,omitempty"`
	SealReason seal.Reason      `json:"seal_reason,omitempty"`
	SealedAt   string           `json:"sealed_at"` // TimeLayout, UTC
	SkillName  string           `json:"skill_name"`
	StartedAt  string           `json:"started_at"` // TimeLayout, UTC
	StepID     string           `json:"step_id,omitempty"`
	StepKind   string           `json:"step_kind,omitempty"` // tool, module, command, skill, agent, ask, ...
}

// Runtime records what produced the receipt, including the negotiated plugin
// protocol and the plugin's own version when a plugin did the work.
type Runtime struct {
	Plugin      *PluginRef `json:"plugin,omitempty"`
	RunxVersion string     `json:"runx_version"`
}

// PluginRef names the plugin that served a step and the protocol it spoke.
type PluginRef struct {
	Name     string `json:"name"`
	Protocol int    `json:"protocol"`
	Version  string `json:"version"`
}

// RegistryPackage is the identity a registry package's verified
// signature.json states, as a run bound it.
type RegistryPackage struct {
	ContentDigest string `json:"content_digest"`
	Name          string `json:"name"`
	Publisher     string `json:"publisher"`
	Registry      string `json:"registry"`
	TrustTier     string `json:"trust_tier"`
	Version       string `json:"version"`
}

// Process is what runx observed of a trusted_host_process step. The argv is
// committed by digest so a receipt never holds an argument verbatim.
type Process struct {
	ArgvDigest string `json:"argv_digest"`
	DurationMS int64  `json:"duration_ms"`
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal,omitempty"`
}

// ChildRef is a parent's commitment to one child: the child's id and the
// digest of the child's whole canonical receipt (body and signature), so
// neither the child's body nor its signature can be swapped afterwards.
type ChildRef struct {
	ReceiptID    string `json:"receipt_id"`
	SignedDigest string `json:"signed_digest"`
}

// Signature is an ed25519 signature over the canonical body.
type Signature struct {
	Alg       string `json:"alg"`        // SignatureAlg
	KeyID     string `json:"key_id"`     // KeyID(public key)
	PublicKey string `json:"public_key"` // base64 (standard, padded)
	Value     string `json:"value"`      // base64 (standard, padded)
}

// SignatureAlg is the only signature algorithm runx.receipt.v1 admits.
const SignatureAlg = "ed25519"

// Kind says whether a receipt is a run's or a step's.
type Kind string

// Kinds of receipt.
const (
	KindRun  Kind = "run"
	KindStep Kind = "step"
)
