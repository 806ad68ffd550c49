package fs

// ChangedFile is one file of a change's output: what it held and what it
// holds now. BeforeDigest is absent for a created file, AfterDigest for a
// deleted one.
type ChangedFile struct {
	Path         string `json:"path"`
	Op           string `json:"op"`
	BeforeDigest string `json:"before_digest,omitempty"`
	AfterDigest  string `json:"after_digest,omitempty"`
}

// WriteResponse is fs.write's output.
type WriteResponse struct {
	ChangedFile
	Journal JournalRef `json:"journal"`
}

// EditResponse is fs.edit's output. Replacements counts, per edit, the
// occurrences it replaced.
type EditResponse struct {
	ChangedFile
	Replacements []int      `json:"replacements"`
	Journal      JournalRef `json:"journal"`
}

// BundleResponse is fs.apply_bundle's output, its files in request order.
type BundleResponse struct {
	Files   []ChangedFile `json:"files"`
	Journal JournalRef    `json:"journal"`
}

// The answers are built from the committed journal, so a call sent again
// answers exactly what the first sending did.

func changedFiles(rec *journalRecord) []ChangedFile {
	files := make([]ChangedFile, 0, len(rec.Files))
	for _, f := range rec.Files {
		files = append(files, ChangedFile{Path: f.Path, Op: f.Op, BeforeDigest: f.BeforeDigest, AfterDigest: f.AfterDigest})
	}
	return files
}

func writeAnswer(rec *journalRecord, ref JournalRef) any {
	return &WriteResponse{ChangedFile: changedFiles(rec)[0], Journal: ref}
}

func editAnswer(rec *journalRecord, ref JournalRef) any {
	return &EditResponse{ChangedFile: changedFiles(rec)[0], Replacements: rec.Files[0].Replacements, Journal: ref}
}

func bundleAnswer(rec *journalRecord, ref JournalRef) any {
	return &BundleResponse{Files: changedFiles(rec), Journal: ref}
}
