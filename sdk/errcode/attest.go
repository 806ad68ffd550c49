package errcode

// Attestations: A receipt tree stated as an in-toto Statement in a DSSE envelope (runx verify --in-toto).
const (
	// AttestationKeyMismatch: The receipt was signed by another key than this runx home's; only the key
	// that signed a receipt attests it.
	// Do: Attest it with the runx home that signed it, or verify it without --in-toto.
	AttestationKeyMismatch Code = "attestation_key_mismatch"

	// AttestationTooLarge: The receipt tree is over what one attestation carries (64 MiB of receipts,
	// 30,002 receipts, 64 levels).
	// Do: Attest a smaller tree: a child run's receipt.
	AttestationTooLarge Code = "attestation_too_large"

	// AttestationUnverified: The receipt tree did not verify, so runx attests nothing about it.
	// Do: Run runx verify <receipt-id> to see its problems.
	AttestationUnverified Code = "attestation_unverified"
)
