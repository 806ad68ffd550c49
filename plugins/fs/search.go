package fs

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// fs.search's bounds.
const (
	SearchDefaultMaxMatches = 200
	SearchMaxMatches        = 5_000
	// SearchMaxFiles bounds one walk; past it the answer is truncated.
	SearchMaxFiles = 200_000
	// SearchMaxFileBytes skips files too large to be source a person reads.
	SearchMaxFileBytes = 16 << 20
	// searchQueueDepth keeps the walker a little ahead of the readers.
	searchQueueDepth = 256
)

// SearchRequest is fs.search's input. Path defaults to the workspace root
// and may name one file. Query is literal unless Regex is set (RE2 syntax,
// with ^ and $ matching at line ends). Include filters a walk's files.
type SearchRequest struct {
	Path       string   `json:"path,omitempty"`
	Query      string   `json:"query"`
	Regex      bool     `json:"regex,omitempty"`
	MaxMatches int      `json:"max_matches,omitempty"`
	Include    globList `json:"include,omitempty"`
}

// SearchResponse is fs.search's output. Counts cover the files searched
// before the answer was cut; Truncated says matches or files remained.
type SearchResponse struct {
	Path          string  `json:"path"`
	Query         string  `json:"query"`
	Regex         bool    `json:"regex"`
	Matches       []Match `json:"matches"`
	Count         int     `json:"count"`
	FilesSearched int     `json:"files_searched"`
	FilesMatched  int     `json:"files_matched"`
	// FilesSkipped counts binary files and files over SearchMaxFileBytes.
	FilesSkipped int  `json:"files_skipped"`
	Truncated    bool `json:"truncated"`
}

type searchJob struct {
	index   int
	real    string
	display string
}

type fileResult struct {
	matches []Match
	skipped bool
}

func search(ctx context.Context, scope *Scope, req *SearchRequest) (*SearchResponse, *plugin.Result) {
	if req.Query == "" {
		return nil, plugin.Refused(errcode.FSSearchQueryEmpty, "fs.search needs a non-empty query")
	}
	limit := req.MaxMatches
	if limit == 0 {
		limit = SearchDefaultMaxMatches
	}
	if limit < 0 || limit > SearchMaxMatches {
		return nil, plugin.Refused(errcode.FSRequestInvalid, fmt.Sprintf("max_matches must be between 1 and %d", SearchMaxMatches))
	}
	var f finder = literalFinder(req.Query)
	if req.Regex {
		re, err := regexp.Compile("(?m)" + req.Query)
		if err != nil {
			return nil, plugin.Refused(errcode.FSSearchRegexInvalid, fmt.Sprintf("query is not a valid regular expression: %v", err))
		}
		f = regexFinder{re}
	}
	t, res := scope.Resolve(req.Path)
	if res != nil {
		return nil, res
	}
	if t.Info == nil {
		return nil, plugin.Refused(errcode.FSNotFound, fmt.Sprintf("%s does not exist", orRoot(req.Path)))
	}
	resp := &SearchResponse{Path: t.Display, Query: req.Query, Regex: req.Regex, Matches: []Match{}}
	switch {
	case t.Info.Mode().IsRegular():
		// A named file is searched whatever the ignore files say; Resolve
		// has already refused it if it is a secret.
		r := searchFile(t.Real, t.Display, f, limit+1, nil)
		resp.add([]fileResult{r}, limit)
	case t.Info.IsDir():
		results, capped, err := searchTree(ctx, scope, t, f, compileIncludes(req.Include), limit)
		if err != nil {
			return nil, walkFailure(ctx, req.Path, err)
		}
		resp.add(results, limit)
		resp.Truncated = resp.Truncated || capped
	default:
		return nil, plugin.Refused(errcode.FSNotAFile, fmt.Sprintf("%s is neither a file nor a directory", req.Path))
	}
	resp.Count = len(resp.Matches)
	return resp, nil
}

// add merges per-file results in walk order and cuts them at limit. The
// counts stop at the file where the cut fell, so they do not depend on how
// far the parallel readers happened to get.
func (r *SearchResponse) add(results []fileResult, limit int) {
	for _, fr := range results {
		r.FilesSearched++
		if fr.skipped {
			r.FilesSkipped++
			continue
		}
		if len(fr.matches) > 0 {
			r.FilesMatched++
		}
		room := limit - len(r.Matches)
		if len(fr.matches) > room {
			r.Matches = append(r.Matches, fr.matches[:room]...)
			r.Truncated = true
			return
		}
		r.Matches = append(r.Matches, fr.matches...)
	}
}

// searchTree walks t on one goroutine and reads and matches files on the
// others. Files are numbered in walk order and dispatched in that order,
// so once more than limit matches are known every file before the last one
// dispatched has been searched, and the first limit matches in walk order
// are exact. capped reports that the walk stopped at SearchMaxFiles.
func searchTree(ctx context.Context, scope *Scope, t *Target, f finder, inc includeGlobs, limit int) ([]fileResult, bool, error) {
	jobs := make(chan searchJob, searchQueueDepth)
	var (
		mu      sync.Mutex
		results []fileResult
		found   atomic.Int64
		wg      sync.WaitGroup
	)
	workers := max(2, runtime.GOMAXPROCS(0))
	for range workers {
		wg.Go(func() {
			var buf []byte
			for job := range jobs {
				r := searchFile(job.real, job.display, f, limit+1, &buf)
				found.Add(int64(len(r.matches)))
				mu.Lock()
				results[job.index] = r
				mu.Unlock()
			}
		})
	}
	files, capped := 0, false
	err := walk(ctx, scope, t, true, func(e *walkEntry) bool {
		if e.kind != KindFile || !inc.admits(e.rel) {
			return true
		}
		if found.Load() > int64(limit) {
			return false
		}
		if files == SearchMaxFiles {
			capped = true
			return false
		}
		mu.Lock()
		results = append(results, fileResult{})
		mu.Unlock()
		jobs <- searchJob{index: files, real: e.real, display: e.display}
		files++
		return true
	})
	close(jobs)
	wg.Wait()
	return results, capped, err
}

// searchFile reads one regular file whole, at most once, and matches it.
// buf, when given, is reused across files so a walk of thousands of small
// files allocates little. It goes to the system calls directly (open, fstat,
// read, close): an os.File would also register each descriptor with the
// runtime poller and set a finalizer, which cost more than the read itself
// on a tree of small files. The open neither follows a final symlink nor
// blocks on a FIFO swapped in after the walk saw a regular file.
func searchFile(real, display string, f finder, limit int, buf *[]byte) fileResult {
	fd, err := syscall.Open(real, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fileResult{skipped: true}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size > SearchMaxFileBytes {
		return fileResult{skipped: true}
	}
	var local []byte
	if buf == nil {
		buf = &local
	}
	size := int(st.Size)
	if cap(*buf) < size {
		*buf = make([]byte, size+size/4)
	}
	content := (*buf)[:size]
	n := 0
	for n < size {
		m, err := syscall.Read(fd, content[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fileResult{skipped: true}
		}
		if m == 0 {
			break // shrank since fstat: search what is there
		}
		n += m
	}
	content = content[:n]
	if looksBinary(content) {
		return fileResult{skipped: true}
	}
	if secretContentOf(content, real) != "" {
		return fileResult{} // a secret by content shows no line
	}
	return fileResult{matches: matchLines(content, f, display, limit)}
}
