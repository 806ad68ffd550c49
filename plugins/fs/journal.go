package fs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// JournalSchema names the format of a bundle journal file.
const JournalSchema = "runx.fs_bundle_journal.v1"

// Journal states. A journal is begun before the workspace is touched and
// ends committed (every file landed) or rolled_back (every file as it was,
// or named as a conflict where something outside runx changed it since).
const (
	JournalBegun      = "begun"
	JournalCommitted  = "committed"
	JournalRolledBack = "rolled_back"
)

// JournalRef names a journal entry in outputs. Path is absolute.
type JournalRef struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// journalRecord is one call's journal. It records, before the first rename,
// what each file held (its bytes, digest and mode, or its absence), the
// temp file staged for it and the directories the call creates, so a
// process that dies mid-bundle leaves all recovery needs to put the
// workspace back.
type journalRecord struct {
	Schema      string          `json:"schema"`
	ID          string          `json:"id"`
	State       string          `json:"state"`
	Capability  string          `json:"capability"`
	RunID       string          `json:"run_id"`
	CallID      string          `json:"call_id"`
	StepAddress string          `json:"step_address,omitempty"`
	Attempt     int             `json:"attempt,omitempty"`
	InputDigest string          `json:"input_digest"`
	Workspace   string          `json:"workspace"`
	BegunAt     time.Time       `json:"begun_at"`
	EndedAt     time.Time       `json:"ended_at,omitzero"`
	CreatedDirs []string        `json:"created_dirs,omitempty"`
	Files       []journalFile   `json:"files"`
	Rollback    *RollbackReport `json:"rollback,omitempty"`
}

type journalFile struct {
	Path         string      `json:"path"`
	Real         string      `json:"real"`
	Op           string      `json:"op"`
	Existed      bool        `json:"existed"`
	BeforeDigest string      `json:"before_digest,omitempty"`
	BeforeMode   os.FileMode `json:"before_mode,omitempty"`
	Before       []byte      `json:"before,omitempty"`
	AfterDigest  string      `json:"after_digest,omitempty"`
	Replacements []int       `json:"replacements,omitempty"`
	Temp         string      `json:"temp,omitempty"`
}

// journalDir is where a run's bundle journals live beneath the project
// directory the kernel names.
func journalDir(projectDir, runID string) string {
	return filepath.Join(projectDir, "journal", "bundles", safeName(runID))
}

// journalLocation names one call's journal.
func journalLocation(projectDir, runID, callID string) JournalRef {
	return JournalRef{
		ID:   safeName(runID) + "/" + safeName(callID),
		Path: filepath.Join(journalDir(projectDir, runID), safeName(callID)+".json"),
	}
}

// safeName makes an id (a call id such as "r1#step/0@1") one file name.
// A name that had to change carries a digest of the original, so two ids
// never share a file.
func safeName(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == id && len(s) <= 100 && strings.Trim(s, ".") != "" && !strings.HasPrefix(s, ".") {
		return s
	}
	if len(s) > 80 {
		s = s[:80]
	}
	sum := sha256.Sum256([]byte(id))
	return strings.TrimLeft(s, ".") + "-" + hex.EncodeToString(sum[:6])
}

// writeJournal replaces a journal durably: the new record is written and
// synced beside it, renamed over it, and the directory synced, so a crash
// leaves either the old record or the new one, never half of either.
func writeJournal(path string, rec *journalRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	created, err := ensureDir(dir, 0o700)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := writeSynced(tmp, b, 0o600, syscall.O_TRUNC); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	if created {
		// A run directory made now must itself survive a crash.
		return syncDir(filepath.Dir(dir))
	}
	return nil
}

// readJournal loads a journal; a missing one is (nil, nil).
func readJournal(path string) (*journalRecord, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, iofs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec journalRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, err
	}
	if rec.Schema != JournalSchema {
		return nil, errors.New("journal " + path + " is not " + JournalSchema)
	}
	return &rec, nil
}

func ensureDir(dir string, perm os.FileMode) (created bool, err error) {
	if _, err := os.Stat(dir); err == nil {
		return false, nil
	}
	return true, os.MkdirAll(dir, perm)
}
