package authority

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// StandingApproval is one entry of standing_approvals: a person's bounded
// confirmation given ahead of time. Exactly one field is set.
type StandingApproval struct {
	// Edits covers changes to files under these workspace-relative paths, by
	// whole path components; "" is the whole workspace.
	Edits *EditsApproval `json:"edits,omitempty"`
	// Commands covers a command (or process start) whose argv begins with
	// these exact tokens. argv has no shell, so a prefix admits nothing
	// beyond the program and arguments it names.
	Commands *CommandsApproval `json:"commands,omitempty"`
	// Operations covers writes by connector operations named
	// <connector>/<operation>, or every operation of one connector,
	// <connector>/*.
	Operations *OperationsApproval `json:"operations,omitempty"`
	// Local covers every local effect the floor holds: edits, commands,
	// process starts and store writes, but no connector operation.
	Local bool `json:"local,omitempty"`
}

// EditsApproval is {"edits": {"paths": [...]}}.
type EditsApproval struct {
	Paths []string `json:"paths"`
}

// CommandsApproval is {"commands": {"argv_prefix": [...]}}.
type CommandsApproval struct {
	ArgvPrefix []string `json:"argv_prefix"`
}

// OperationsApproval is {"operations": {"names": [...]}}.
type OperationsApproval struct {
	Names []string `json:"names"`
}

// Standing approval kinds, as records and receipts name an entry.
const (
	StandingEdits      = "edits"
	StandingCommands   = "commands"
	StandingOperations = "operations"
	StandingLocal      = "local"
)

// Kind names which of the four forms the entry takes.
func (s StandingApproval) Kind() string {
	switch {
	case s.Edits != nil:
		return StandingEdits
	case s.Commands != nil:
		return StandingCommands
	case s.Operations != nil:
		return StandingOperations
	case s.Local:
		return StandingLocal
	}
	return ""
}

// ParseStandingApprovals reads a standing_approvals list on its own, as a
// resume document carries one in the person's lane; it is held to exactly
// the rules of the authority document's field.
func ParseStandingApprovals(raw []byte) ([]StandingApproval, error) {
	if err := checkDocument(raw); err != nil {
		return nil, err
	}
	return parseStandingApprovals("standing_approvals", raw)
}

func parseStandingApprovals(field string, raw json.RawMessage) ([]StandingApproval, error) {
	items, err := array(field, raw)
	if err != nil {
		return nil, err
	}
	out := make([]StandingApproval, len(items))
	for i, item := range items {
		if out[i], err = parseStandingApproval(indexField(field, i), item); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func parseStandingApproval(field string, raw json.RawMessage) (StandingApproval, error) {
	m, err := object(field, raw)
	if err != nil {
		return StandingApproval{}, err
	}
	if err := onlyFields(field, m, StandingEdits, StandingCommands, StandingOperations, StandingLocal); err != nil {
		return StandingApproval{}, err
	}
	if len(m) != 1 {
		return StandingApproval{}, docError(errcode.AuthorityInvalidValue, field,
			fmt.Sprintf("holds %d forms; an entry is exactly one of edits, commands, operations or local", len(m)))
	}
	var s StandingApproval
	for kind, v := range m {
		f := joinField(field, kind)
		switch kind {
		case StandingEdits:
			paths, err := entryList(f, v, "paths", validEditPath,
				`a clean workspace-relative path ("" is the whole workspace)`)
			if err != nil {
				return s, err
			}
			s.Edits = &EditsApproval{Paths: paths}
		case StandingCommands:
			prefix, err := entryList(f, v, "argv_prefix", nil, "")
			if err != nil {
				return s, err
			}
			if err := validArgvPrefix(joinField(f, "argv_prefix"), prefix); err != nil {
				return s, err
			}
			s.Commands = &CommandsApproval{ArgvPrefix: prefix}
		case StandingOperations:
			names, err := entryList(f, v, "names", validOperationPattern,
				"<connector>/<operation> or <connector>/*")
			if err != nil {
				return s, err
			}
			s.Operations = &OperationsApproval{Names: names}
		case StandingLocal:
			local, err := boolean(f, v)
			if err != nil {
				return s, err
			}
			if !local {
				// false would read as a refusal, which a standing approval
				// cannot express; an absent entry already approves nothing.
				return s, docError(errcode.AuthorityInvalidValue, f, "must be true; leave the entry out to approve nothing")
			}
			s.Local = true
		}
	}
	return s, nil
}

// entryList reads the one list field of an edits, commands or operations
// entry. An empty list is refused: it approves nothing, so it is a mistake.
// valid, when given, checks each item and refuses duplicates.
func entryList(field string, raw json.RawMessage, name string, valid func(string) bool, want string) ([]string, error) {
	m, err := object(field, raw)
	if err != nil {
		return nil, err
	}
	if err := onlyFields(field, m, name); err != nil {
		return nil, err
	}
	v, ok := m[name]
	if !ok {
		return nil, docError(errcode.AuthorityMissingField, joinField(field, name), "is required")
	}
	f := joinField(field, name)
	list, err := strs(f, v)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, docError(errcode.AuthorityInvalidValue, f, "is empty, which approves nothing; leave the entry out instead")
	}
	if valid == nil {
		return list, nil
	}
	seen := make(map[string]bool, len(list))
	for i, item := range list {
		if !valid(item) {
			return nil, docError(errcode.AuthorityInvalidValue, indexField(f, i), fmt.Sprintf("%q is not %s", item, want))
		}
		if seen[item] {
			return nil, docError(errcode.AuthorityDuplicateEntry, indexField(f, i), fmt.Sprintf("%q is listed twice", item))
		}
		seen[item] = true
	}
	return list, nil
}

func validArgvPrefix(field string, prefix []string) error {
	if prefix[0] == "" {
		return docError(errcode.AuthorityInvalidValue, indexField(field, 0), "the program must not be empty")
	}
	for i, tok := range prefix {
		if strings.IndexByte(tok, 0) >= 0 {
			return docError(errcode.AuthorityInvalidValue, indexField(field, i), "an argv token cannot hold a NUL byte")
		}
	}
	return nil
}

// validEditPath accepts "" (the whole workspace) or a clean, slash-separated
// workspace-relative path. Only one spelling of a path is accepted ("src",
// never "src/" or "./src"), so coverage can compare components exactly.
func validEditPath(p string) bool {
	return p == "" || cleanRelative(p)
}

// cleanRelative reports whether p is a non-empty relative path with no
// empty, "." or ".." components and no backslash or NUL.
func cleanRelative(p string) bool {
	if p == "" || strings.ContainsAny(p, "\\\x00") {
		return false
	}
	// strings.Cut rather than SplitSeq: the floor checks every path of an
	// edit, and the iterator allocates where this loop does not.
	for rest, more := p, true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, "/")
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return !(len(p) > 1 && p[1] == ':') // a Windows drive is not relative
}

// validOperationPattern accepts <connector>/<operation> and <connector>/*,
// where the connector may itself be namespaced (fixture/forge): the
// operation is always the last segment.
func validOperationPattern(s string) bool {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 || i == len(s)-1 {
		return false
	}
	if !validOperationID(s[:i]) {
		return false
	}
	op := s[i+1:]
	return op == "*" || validOperationID(op)
}

// validOperationID accepts slash-separated segments of letters, digits,
// '.', '_' and '-', as capability and connector ids are written.
func validOperationID(s string) bool {
	for seg := range strings.SplitSeq(s, "/") {
		if seg == "" {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				return false
			}
		}
	}
	return true
}

// pathCovers reports whether an edits entry path covers a changed path, by
// whole components: "src" covers "src" and "src/a.go", never "srcx".
func pathCovers(entry, changed string) bool {
	if entry == "" {
		return true
	}
	return changed == entry || (len(changed) > len(entry) && changed[len(entry)] == '/' && strings.HasPrefix(changed, entry))
}

// argvCovers reports whether argv begins with prefix, token for token.
func argvCovers(prefix, argv []string) bool {
	if len(argv) < len(prefix) {
		return false
	}
	for i, tok := range prefix {
		if argv[i] != tok {
			return false
		}
	}
	return true
}

// operationCovers reports whether a names entry covers op: the exact name,
// or <connector>/* for any operation of exactly that connector.
func operationCovers(name, op string) bool {
	if conn, ok := strings.CutSuffix(name, "/*"); ok {
		i := strings.LastIndexByte(op, '/')
		return i > 0 && op[:i] == conn
	}
	return name == op
}
