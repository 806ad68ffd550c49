package receipt

import "github.com/runxhq/runx/sdk/errcode"

// VerifyStatus is what verifying a receipt tree found.
type VerifyStatus string

// Verification statuses.
const (
	// StatusVerified: every receipt is intact, committed once, within the
	// bound, and signed by a trusted key.
	StatusVerified VerifyStatus = "verified"
	// StatusUnverified: nothing is wrong with the tree, but some signer is
	// not trusted (or the walk was cancelled), so who signed is not proven.
	StatusUnverified VerifyStatus = "unverified"
	// StatusInvalid: some receipt is altered, missing, malformed, committed
	// twice, or past the bound.
	StatusInvalid VerifyStatus = "invalid"
)

// Problem codes a verification can report. Every code but
// CodeSignatureUntrusted and CodeVerifyCancelled makes the tree invalid.
const (
// CodeMalformed, CodeBodyInvalid and CodeIDInvalid (errors.go) also
// appear as problems.
)

// Report is the outcome of verifying one tree.
type Report struct {
	Status    VerifyStatus `json:"status"`
	ReceiptID string       `json:"receipt_id"` // the root that was verified
	Receipts  int          `json:"receipts"`   // receipts reached, counted against the bound
	Depth     int          `json:"depth"`      // deepest level reached below the root
	Problems  []Problem    `json:"problems,omitempty"`
	// ProblemsOmitted counts problems past Limits.MaxProblems; they still
	// count towards Status.
	ProblemsOmitted int `json:"problems_omitted,omitempty"`
	// SkippedKeys are trusted key files left out of the key set
	// (KeySet.Skipped): receipts they signed are unverified, the rest
	// verify as before.
	SkippedKeys []SkippedKey `json:"skipped_keys,omitempty"`
}

// Problem names the receipt it is about.
type Problem struct {
	ReceiptID string       `json:"receipt_id"`
	Code      errcode.Code `json:"code"`
	Message   string       `json:"message"`
}
