package receipt

// maxReceiptSize bounds what is read for one receipt. The largest receipt
// runx writes is a script step committing 10,000 calls, about 1.6 MB; the
// bound keeps a planted oversized file from defeating the verifier's memory
// bound.
const maxReceiptSize = 64 << 20
