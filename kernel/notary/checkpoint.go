package notary

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// maxCheckpointBytes bounds a signed checkpoint: three short lines and a
// few signatures.
const maxCheckpointBytes = 4 << 10

// Checkpoint is a signed statement of the log's size and root hash, in the
// C2SP tlog-checkpoint form: "<origin>\n<size>\n<base64 root>\n", then the
// note's signature lines.
type Checkpoint struct {
	Origin string
	Size   int64
	Root   tlog.Hash
	// Signed is the whole signed note, as published.
	Signed string
}

// body is the checkpoint's signed text.
func checkpointBody(origin string, size int64, root tlog.Hash) string {
	return origin + "\n" + strconv.FormatInt(size, 10) + "\n" + base64.StdEncoding.EncodeToString(root[:]) + "\n"
}

// CheckpointSigner signs a notary's checkpoints with its ed25519 key, as a
// note signer named by the key's Origin.
type CheckpointSigner struct {
	origin string
	signer note.Signer
}

// NewCheckpointSigner makes the signer for key.
func NewCheckpointSigner(key ed25519.PrivateKey) (*CheckpointSigner, error) {
	pub := key.Public().(ed25519.PublicKey)
	origin := Origin(pub)
	vkey, err := note.NewEd25519VerifierKey(origin, pub)
	if err != nil {
		return nil, err
	}
	// vkey is <name>+<hash>+<base64 key>; the signer key is the same name
	// and hash over the seed, in note's PRIVATE+KEY form.
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return nil, fmt.Errorf("notary: unexpected verifier key form")
	}
	skey := "PRIVATE+KEY+" + origin + "+" + parts[1] + "+" + base64.StdEncoding.EncodeToString(append([]byte{1}, key.Seed()...))
	s, err := note.NewSigner(skey)
	if err != nil {
		return nil, err
	}
	return &CheckpointSigner{origin: origin, signer: s}, nil
}

// Origin is the log's name.
func (s *CheckpointSigner) Origin() string { return s.origin }

// Sign makes the signed checkpoint of a tree of size entries and root hash.
func (s *CheckpointSigner) Sign(size int64, root tlog.Hash) (Checkpoint, error) {
	signed, err := note.Sign(&note.Note{Text: checkpointBody(s.origin, size, root)}, s.signer)
	if err != nil {
		return Checkpoint{}, err
	}
	return Checkpoint{Origin: s.origin, Size: size, Root: root, Signed: string(signed)}, nil
}

// OpenCheckpoint checks a signed checkpoint against the notary's key: one
// valid signature by that key, the key's origin on its first line, a size
// and a root hash, nothing else.
func OpenCheckpoint(signed string, pub ed25519.PublicKey) (Checkpoint, error) {
	bad := func(format string, args ...any) (Checkpoint, error) {
		return Checkpoint{}, contract.Errorf(errcode.NotaryCheckpointInvalid, "the checkpoint "+format, args...)
	}
	if len(signed) > maxCheckpointBytes {
		return bad("is over %d bytes", maxCheckpointBytes)
	}
	origin := Origin(pub)
	vkey, err := note.NewEd25519VerifierKey(origin, pub)
	if err != nil {
		return Checkpoint{}, err
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return Checkpoint{}, err
	}
	n, err := note.Open([]byte(signed), note.VerifierList(v))
	if err != nil {
		return bad("is not signed by the notary key %s: %v", KeyID(pub), err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) != 4 || lines[3] != "" {
		return bad("is not three lines (origin, size, root hash)")
	}
	if lines[0] != origin {
		return bad("names the log %q; the notary key signs %q", lines[0], origin)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 1 || strconv.FormatInt(size, 10) != lines[1] {
		return bad("size %q is not a positive decimal", lines[1])
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(lines[2])
	if err != nil || len(raw) != tlog.HashSize {
		return bad("root hash is not the base64 of %d bytes", tlog.HashSize)
	}
	var root tlog.Hash
	copy(root[:], raw)
	return Checkpoint{Origin: origin, Size: size, Root: root, Signed: signed}, nil
}
