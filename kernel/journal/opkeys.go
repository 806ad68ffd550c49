package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// KeyState is the custody runx keeps of one write's act under its
// provider key.
type KeyState string

// States of a provider key, listed once.
const (
	// KeyAttempting: the request may have left; nothing was read back.
	KeyAttempting KeyState = "attempting"
	// KeyAcknowledged: the provider answered that it did the act; no
	// readback has confirmed it yet.
	KeyAcknowledged KeyState = "acknowledged"
	// KeyConfirmed: the act is confirmed (read back, or acknowledged where
	// the operation declares no readback) and its receipt is being sealed.
	KeyConfirmed KeyState = "confirmed"
	// KeyDone: the act's receipt is sealed; a later call under the key
	// sends nothing and names that receipt.
	KeyDone KeyState = "done"
	// KeyRefused: the provider refused, or nothing left; the key may be
	// tried again.
	KeyRefused KeyState = "refused"
)

// OperationKey is one provider key's record: the exact body it was first
// sent with (by digest), where it was sent from, and what custody holds of
// its act.
type OperationKey struct {
	ProviderKey string          `json:"provider_key"`
	Operation   string          `json:"operation"`
	BodyDigest  string          `json:"body_digest"`
	Binding     string          `json:"binding"` // the connector and operation digests it was sent under
	State       KeyState        `json:"state"`
	RunID       string          `json:"run_id"`
	Address     string          `json:"address"`
	Response    json.RawMessage `json:"response,omitempty"`
	ReceiptID   string          `json:"receipt_id,omitempty"`
	PlanDigest  string          `json:"plan_digest,omitempty"`
	Attempts    int             `json:"attempts"`
	FirstSentAt string          `json:"first_sent_at,omitempty"`
}

// OperationKeys is the journal's custody of the effects sent under a
// provider's idempotency key: one record per key, read before a write is
// sent, begun durably before it leaves and settled as its act is known.
type OperationKeys struct{ j *Journal }

// OperationKeys returns the journal's provider-key records.
func (j *Journal) OperationKeys() OperationKeys { return OperationKeys{j} }

// Get returns the record of a provider key, or nil.
func (ks OperationKeys) Get(ctx context.Context, providerKey string) (*OperationKey, error) {
	j := ks.j
	k := &OperationKey{ProviderKey: providerKey}
	var resp string
	err := j.db.QueryRowContext(ctx, `SELECT operation, body_digest, binding, state, run_id, address, response, receipt_id, plan_digest, attempts, first_sent_at FROM operation_keys WHERE provider_key = ?`, providerKey).
		Scan(&k.Operation, &k.BodyDigest, &k.Binding, &k.State, &k.RunID, &k.Address, &resp, &k.ReceiptID, &k.PlanDigest, &k.Attempts, &k.FirstSentAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if resp != "" {
		k.Response = json.RawMessage(resp)
	}
	return k, nil
}

// ErrKeyContended: another call began an attempt under the provider key
// after this one read it, so this one must not send.
var ErrKeyContended = errors.New("another attempt began under this provider key")

// BeginAttempt records, durably and before anything is sent, that a write
// is about to leave under k's provider key: a driver killed after this
// point finds the attempt and reconciles it before it sends again. prior is
// the attempts count the caller read (0 for no record): the attempt is
// recorded only if no other began since, so two calls under one key (two
// fan-out items, two processes) never both send; the loser gets
// ErrKeyContended.
func (ks OperationKeys) BeginAttempt(ctx context.Context, k *OperationKey, prior int) error {
	j := ks.j
	now := j.now()
	return j.tx(undeferred(ctx), func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO operation_keys (provider_key, operation, body_digest, binding, state, run_id, address, plan_digest, attempts, first_sent_at, updated_at)
VALUES (?,?,?,?,?,?,?,?,1,?,?)
ON CONFLICT(provider_key) DO UPDATE SET state = excluded.state, run_id = excluded.run_id, address = excluded.address, binding = excluded.binding,
  plan_digest = excluded.plan_digest, attempts = operation_keys.attempts + 1, updated_at = excluded.updated_at, response = ''
  WHERE operation_keys.attempts = ?`,
			k.ProviderKey, k.Operation, k.BodyDigest, k.Binding, string(KeyAttempting), k.RunID, k.Address, k.PlanDigest, now, now, prior)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrKeyContended
		}
		return j.appendEvent(ctx, tx, k.RunID, "operations", "operation.attempt", map[string]any{"provider_key": k.ProviderKey, "address": k.Address, "body_digest": k.BodyDigest}, now)
	})
}

// Settle moves a provider key to state, keeping the provider's answer
// and, once sealed, the receipt that did the act.
func (ks OperationKeys) Settle(ctx context.Context, runID, providerKey string, state KeyState, response json.RawMessage, receiptID string) error {
	j := ks.j
	now := j.now()
	return j.tx(undeferred(ctx), func(tx *sql.Tx) error {
		q := `UPDATE operation_keys SET state = ?, updated_at = ?`
		args := []any{string(state), now}
		if response != nil {
			q += `, response = ?`
			args = append(args, j.text(response))
		}
		if receiptID != "" {
			q += `, receipt_id = ?`
			args = append(args, receiptID)
		}
		q += ` WHERE provider_key = ?`
		args = append(args, providerKey)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
		return j.appendEvent(ctx, tx, runID, "operations", "operation."+string(state), map[string]any{"provider_key": providerKey, "receipt_id": receiptID}, now)
	})
}
