package fs

import (
	"fmt"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Edit is one exact replacement of fs.edit.
type Edit struct {
	Old        string `json:"old"`
	New        string `json:"new"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// applyEdits applies edits to content in order, each to the result of the
// ones before it, and returns the new content and how many replacements
// each edit made. An edit whose old text is absent, or present more than
// once without replace_all, refuses the whole call: guessing which
// occurrence a model meant is how the wrong line gets changed.
func applyEdits(asked, content string, edits []Edit) (string, []int, *plugin.Result) {
	counts := make([]int, len(edits))
	for i, e := range edits {
		if e.Old == "" {
			return "", nil, plugin.Refused(errcode.FSRequestInvalid,
				fmt.Sprintf("edit %d of %s has an empty old; name the exact text to replace", i+1, asked))
		}
		n := strings.Count(content, e.Old)
		switch {
		case n == 0:
			return "", nil, plugin.Refused(errcode.FSEditNotFound,
				fmt.Sprintf("edit %d of %s: old text was not found in the file as it stands after the edits before it; read the file again and copy the text exactly", i+1, asked))
		case n > 1 && !e.ReplaceAll:
			return "", nil, plugin.Refused(errcode.FSEditAmbiguous,
				fmt.Sprintf("edit %d of %s: old text occurs %d times; include more surrounding text so it occurs once, or set replace_all", i+1, asked, n))
		}
		if e.ReplaceAll {
			content = strings.ReplaceAll(content, e.Old, e.New)
		} else {
			content = strings.Replace(content, e.Old, e.New, 1)
		}
		counts[i] = n
	}
	return content, counts, nil
}
