package git

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
)

// Record and field separators in the --format strings below. Commit
// metadata cannot hold NUL, and git refuses names and emails with control
// characters that would matter here; the message is always the last field,
// so whatever it holds cannot shift the others.
const (
	recordStart = "%x1e"
	fieldEnd    = "%x1f"
)

var errMalformed = errors.New("malformed git output")

// rawEntry is one line of `git diff --raw -z --no-abbrev`.
type rawEntry struct {
	srcID, dstID string
	status       byte
	score        int
	path         string // the new path
	oldPath      string // the old path of a rename or copy
}

// zeroID is how --raw names a side that is not in the object database:
// the working tree, or the missing side of an add or delete.
func zeroID(id string) bool { return strings.Trim(id, "0") == "" }

// parseRaw reads raw entries from b at pos until the next byte is not ':'.
// It returns the entries and where it stopped.
func parseRaw(b []byte, pos int) ([]rawEntry, int, error) {
	var out []rawEntry
	for pos < len(b) && b[pos] == ':' {
		end := bytes.IndexByte(b[pos:], 0)
		if end < 0 {
			return out, pos, errMalformed
		}
		meta := strings.Fields(string(b[pos+1 : pos+end]))
		pos += end + 1
		if len(meta) != 5 || meta[4] == "" {
			return out, pos, errMalformed
		}
		e := rawEntry{srcID: meta[2], dstID: meta[3], status: meta[4][0]}
		if len(meta[4]) > 1 {
			e.score, _ = strconv.Atoi(meta[4][1:])
		}
		var p string
		if p, pos = nulField(b, pos); pos < 0 {
			return out, len(b), errMalformed
		}
		e.path = p
		if e.status == 'R' || e.status == 'C' {
			e.oldPath = p
			if p, pos = nulField(b, pos); pos < 0 {
				return out, len(b), errMalformed
			}
			e.path = p
		}
		out = append(out, e)
	}
	return out, pos, nil
}

func nulField(b []byte, pos int) (string, int) {
	end := bytes.IndexByte(b[pos:], 0)
	if end < 0 {
		return "", -1
	}
	return string(b[pos : pos+end]), pos + end + 1
}

// header is one commit's formatted fields, in the order commitFormat
// prints them.
type header struct {
	hash, parents, author, email, date, committer, committerDate, message string
}

// commitFormat prints a header: RS, then fields each ending in US, then the
// NUL that -z puts after every formatted commit.
var commitFormat = "--format=" + recordStart + strings.Join([]string{"%H", "%P", "%an", "%ae", "%aI", "%cn", "%cI"}, fieldEnd) + fieldEnd + "%B" + fieldEnd

// headerFieldCount is the fields before the message.
const headerFieldCount = 7

// logFormat is commitFormat with the subject alone for the message.
var logFormat = strings.Replace(commitFormat, "%B", "%s", 1)

// parseHeader reads one header at pos (which must hold the RS byte) and
// returns where the raw entries that follow it begin.
func parseHeader(b []byte, pos int) (header, int, error) {
	if pos >= len(b) || b[pos] != 0x1e {
		return header{}, pos, errMalformed
	}
	end := bytes.Index(b[pos:], []byte{0x1f, 0})
	if end < 0 {
		return header{}, pos, errMalformed
	}
	fields := strings.SplitN(string(b[pos+1:pos+end]), "\x1f", headerFieldCount+1)
	if len(fields) != headerFieldCount+1 {
		return header{}, pos, errMalformed
	}
	h := header{
		hash: fields[0], parents: fields[1], author: fields[2], email: fields[3],
		date: fields[4], committer: fields[5], committerDate: fields[6], message: fields[7],
	}
	pos += end + 2
	if pos < len(b) && b[pos] == '\n' {
		pos++
	}
	return h, pos, nil
}

// splitMessage splits a commit message as git's %s and %b do: the subject
// is the first paragraph with its lines joined by spaces.
func splitMessage(msg string) (subject, body string) {
	msg = strings.TrimLeft(msg, "\n")
	para, rest, _ := strings.Cut(msg, "\n\n")
	subject = strings.TrimSpace(strings.ReplaceAll(para, "\n", " "))
	return subject, strings.Trim(rest, "\n")
}
