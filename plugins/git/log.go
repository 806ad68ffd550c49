package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// git.log's bounds.
const (
	LogDefaultMaxCount = 20
	LogMaxCount        = 200
	// logMaxBytes bounds what one log reads from git; commits past it are
	// dropped and the answer is truncated.
	logMaxBytes = 4 << 20
	// maxFilesPerCommit bounds one commit's file list in a log.
	maxFilesPerCommit = 1_000
)

// LogRequest is git.log's input. Path limits the log to commits touching
// it and picks the repository (default the workspace root); Rev is a
// revision or a range A..B / A...B (default HEAD).
type LogRequest struct {
	Path     string `json:"path,omitempty"`
	Rev      string `json:"rev,omitempty"`
	MaxCount int    `json:"max_count,omitempty"`
}

// Commit is one commit with its changed files (against its first parent).
// Body is given by git.show; a log carries the subject only.
type Commit struct {
	Hash           string          `json:"hash"`
	Parents        []string        `json:"parents"`
	Author         string          `json:"author"`
	AuthorEmail    string          `json:"author_email"`
	Date           string          `json:"date"`
	Committer      string          `json:"committer"`
	CommitterDate  string          `json:"committer_date"`
	Subject        string          `json:"subject"`
	Body           string          `json:"body,omitempty"`
	Files          []FileChange    `json:"files"`
	FilesTruncated bool            `json:"files_truncated,omitempty"`
	OmittedSecrets []OmittedSecret `json:"omitted_secrets,omitempty"`
}

// LogResponse is git.log's output.
type LogResponse struct {
	Repository string   `json:"repository"`
	Path       string   `json:"path,omitempty"`
	Rev        string   `json:"rev"`
	Commits    []Commit `json:"commits"`
	Count      int      `json:"count"`
	Truncated  bool     `json:"truncated"`
}

func gitLog(ctx context.Context, r *repo, req *LogRequest) (*LogResponse, *plugin.Result) {
	count := req.MaxCount
	if count == 0 {
		count = LogDefaultMaxCount
	}
	if count < 0 || count > LogMaxCount {
		return nil, plugin.Refused(errcode.GitRequestInvalid, fmt.Sprintf("max_count must be between 1 and %d", LogMaxCount))
	}
	rev, res := r.resolveRange(ctx, req.Rev)
	if res != nil {
		return nil, res
	}
	// One commit more than asked says whether the history goes on.
	args := []string{"log", "-z", logFormat, "--raw", "--no-abbrev", "-M", "--diff-merges=first-parent",
		"--no-ext-diff", "--no-textconv", "--max-count=" + strconv.Itoa(count+1), rev, "--"}
	out, err := r.git(ctx, logMaxBytes, append(args, r.userPathspec()...)...)
	if err != nil {
		return nil, gitFailure(ctx, "git log", err)
	}
	commits, complete, res := r.parseLog(ctx, out.stdout)
	if res != nil {
		return nil, res
	}
	resp := &LogResponse{Repository: r.display, Path: req.Path, Rev: orHEAD(req.Rev), Commits: commits}
	if out.truncated && complete && len(commits) > 0 {
		// Cut between two raw entries, the last commit parses whole but
		// may be missing files: drop it rather than show it short.
		resp.Commits = commits[:len(commits)-1]
	}
	if !complete || out.truncated {
		resp.Truncated = true
	}
	if len(resp.Commits) > count {
		resp.Commits, resp.Truncated = resp.Commits[:count], true
	}
	resp.Count = len(resp.Commits)
	return resp, nil
}

// parseLog reads commits until the output ends. complete is false when
// the output was cut inside a commit, which is then dropped.
func (r *repo) parseLog(ctx context.Context, b []byte) ([]Commit, bool, *plugin.Result) {
	commits := []Commit{}
	for pos := 0; pos < len(b); {
		h, next, err := parseHeader(b, pos)
		if err != nil {
			return commits, false, nil
		}
		entries, next, err := parseRaw(b, next)
		if err != nil {
			return commits, false, nil
		}
		c, _, res := r.commitOf(ctx, h, entries, false)
		if res != nil {
			return nil, false, res
		}
		commits = append(commits, *c)
		pos = next
		for pos < len(b) && (b[pos] == '\n' || b[pos] == 0) {
			pos++
		}
	}
	return commits, true, nil
}

// commitOf builds a Commit from its header and raw entries, with secrets
// moved out of its files. full is git.show's view: the body, and PEM-like
// files judged by content because a patch will show it.
func (r *repo) commitOf(ctx context.Context, h header, entries []rawEntry, full bool) (*Commit, *sorted, *plugin.Result) {
	s, res := r.sortChanges(ctx, entries, full, false)
	if res != nil {
		return nil, nil, res
	}
	c := &Commit{
		Hash: h.hash, Parents: strings.Fields(h.parents), Author: h.author, AuthorEmail: h.email, Date: h.date,
		Committer: h.committer, CommitterDate: h.committerDate, Files: s.files, OmittedSecrets: s.omitted,
	}
	c.Subject, c.Body = splitMessage(h.message)
	if !full {
		c.Body = ""
	}
	if len(c.Files) > maxFilesPerCommit {
		c.Files, c.FilesTruncated = c.Files[:maxFilesPerCommit], true
	}
	return c, s, nil
}
