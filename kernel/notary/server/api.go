package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/runxhq/runx/kernel/notary"
	"github.com/runxhq/runx/kernel/notary/server/store"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// maxNotarizeBody bounds a notarize: the largest receipt (8 MiB) with room
// for the whitespace of a pretty-printed one.
const maxNotarizeBody = 9 << 20

func (s *Server) notarize(w http.ResponseWriter, r *http.Request) {
	tok, err := s.authenticate(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if ok, wait := s.limits.allow(tok.ID, s.now()); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
		s.fail(w, r, refuse(http.StatusTooManyRequests, errcode.NotaryRateLimited, "this token sent more notarizes than the notary allows; send again in %s", wait.Round(time.Second)))
		return
	}
	select {
	case s.notarizes <- struct{}{}:
		defer func() { <-s.notarizes }()
	case <-r.Context().Done():
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxNotarizeBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		s.fail(w, r, refuse(http.StatusRequestEntityTooLarge, errcode.NotaryRequestTooLarge, "a notarize body is at most %d bytes: one sealed receipt", maxNotarizeBody))
		return
	}
	if err != nil {
		s.fail(w, r, refuse(http.StatusBadRequest, errcode.NotaryRequestInvalid, "the body could not be read"))
		return
	}
	sealed, err := receipt.CheckSealed(body)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	e, size, fresh, err := s.store.Append(r.Context(), sealed.ContentHash, func(index int64) ([]byte, []byte, error) {
		// Dated under the log's writer lock, so times never go back as
		// the index grows.
		at := s.now().UTC().Format(notary.TimeLayout)
		st := notary.Statement{
			ContentHash: sealed.ContentHash, LogIndex: index, NotarizedAt: at, Origin: s.signer.Origin(),
			ReceiptID: sealed.Receipt.ID, Schema: notary.StatementSchema, SignerKeyID: receipt.KeyID(sealed.Signer),
		}
		leaf, err := st.Leaf()
		if err != nil {
			return nil, nil, err
		}
		seal, err := json.Marshal(notary.Seal(s.key, leaf))
		return leaf, seal, err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rec, err := s.recordOf(r, e, size)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if fresh {
		status = http.StatusCreated
	}
	writeJSON(w, status, rec)
}

// recordOf is an entry's record in the tree of size entries.
func (s *Server) recordOf(r *http.Request, e store.Entry, size int64) (*notary.Record, error) {
	var st notary.Statement
	var seal notary.Counterseal
	if err := json.Unmarshal(e.Leaf, &st); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(e.Seal, &seal); err != nil {
		return nil, err
	}
	return notary.NewRecord(s.signer, st, seal, size, s.store.Hashes(r.Context()), s.url+notary.LinkPath(e.ContentHash))
}

// record answers GET /r/<content hash>: the record with its proof in the
// log as it is now.
func (s *Server) record(w http.ResponseWriter, r *http.Request) {
	hash := r.PathValue("hash")
	if !canon.ValidDigest(hash) {
		s.fail(w, r, refuse(http.StatusBadRequest, errcode.NotaryRequestInvalid, "a record is named by its content hash, sha256:<64 hex>"))
		return
	}
	e, err := s.store.Entry(r.Context(), hash)
	if errors.Is(err, store.ErrNotFound) {
		s.fail(w, r, refuse(http.StatusNotFound, errcode.NotaryNotFound, "this notary holds no record of %s", hash))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	size, err := s.store.Size(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rec, err := s.recordOf(r, e, size)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rec)
}

// checkpoint answers the log's latest signed checkpoint, as text.
func (s *Server) checkpoint(w http.ResponseWriter, r *http.Request) {
	size, err := s.store.Size(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if size == 0 {
		s.fail(w, r, refuse(http.StatusNotFound, errcode.NotaryNotFound, "the log is empty: nothing has been notarized"))
		return
	}
	root, err := tlog.TreeHash(size, s.store.Hashes(r.Context()))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	cp, err := s.signer.Sign(size, root)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, cp.Signed)
}

// ConsistencyProof is GET /v1/log/consistency's answer.
type ConsistencyProof struct {
	Old   int64          `json:"old"`
	New   int64          `json:"new"`
	Proof tlog.TreeProof `json:"proof"`
}

// consistency answers ?old=&new=: the proof that the tree of old entries
// is a prefix of the tree of new.
func (s *Server) consistency(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	oldSize, err1 := strconv.ParseInt(q.Get("old"), 10, 64)
	newSize, err2 := strconv.ParseInt(q.Get("new"), 10, 64)
	if err1 != nil || err2 != nil || oldSize < 1 || oldSize > newSize {
		s.fail(w, r, refuse(http.StatusBadRequest, errcode.NotaryRequestInvalid, "consistency takes old and new tree sizes, 1 <= old <= new"))
		return
	}
	size, err := s.store.Size(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if newSize > size {
		s.fail(w, r, refuse(http.StatusNotFound, errcode.NotaryNotFound, "the log holds %d entries, not %d", size, newSize))
		return
	}
	proof, err := tlog.ProveTree(newSize, oldSize, s.store.Hashes(r.Context()))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if proof == nil {
		proof = tlog.TreeProof{}
	}
	writeJSON(w, http.StatusOK, ConsistencyProof{Old: oldSize, New: newSize, Proof: proof})
}

// Keys is GET /v1/keys's answer: the key every counter-seal and checkpoint
// verifies under.
type Keys struct {
	Origin    string `json:"origin"`
	KeyID     string `json:"key_id"`
	PublicKey string `json:"public_key"` // PEM
}

func (s *Server) keys(w http.ResponseWriter, _ *http.Request) {
	pub := s.PublicKey()
	writeJSON(w, http.StatusOK, Keys{Origin: notary.Origin(pub), KeyID: notary.KeyID(pub), PublicKey: string(notary.FormatPublicKey(pub))})
}

// whoami answers the token's holder, in the shape runx login reads
// ({"namespaces": [...]}).
func (s *Server) whoami(w http.ResponseWriter, r *http.Request) {
	tok, err := s.authenticate(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"namespaces": []string{tok.Name}})
}
