package pathpolicy

import "bytes"

// holdsAWSCredential reports whether content assigns an AWS credential to
// its name anywhere in a line, in any of the forms files carry them: the
// shared credentials and config files (aws_secret_access_key = ...), a
// shell's export, YAML, JSON (the CLI's credential cache:
// "SecretAccessKey": "..."), code setting the variable
// (Setenv("AWS_SECRET_ACCESS_KEY", "...")). The name is matched in any
// case, with or without the aws prefix and its underscores; the value by
// its form: an access key id by AKIA or ASIA and 16 more capitals or
// digits, a secret access key by 40 base64 characters, a session token
// (or the older security token) by at least 100.
//
// It is no regular expression: one of the same rules took some 2 ms on a
// 3 KiB source file that only said "access" and "session". Every name
// holds a k (key, token), rare in text, so only the words around each k
// or K are looked at, and only one of a name's length that starts as a
// name does (a or s, in either case) is looked up.
func holdsAWSCredential(content []byte) bool {
	var buf [awsNameMax]byte
	for _, k := range []byte{'k', 'K'} {
		for from := 0; from < len(content); {
			i := bytes.IndexByte(content[from:], k)
			if i < 0 {
				break
			}
			start, end := wordAround(content, from+i, from+i+1)
			from = end
			switch content[start] {
			case 'a', 'A', 's', 'S':
			default:
				continue
			}
			if name, ok := normalName(&buf, content[start:end]); ok {
				// Indexed by the conversion itself, the lookup copies nothing.
				if kind, ok := awsNames[string(name)]; ok && awsValueAfter(content[end:], kind) {
					return true
				}
			}
		}
	}
	return false
}

// awsValue is the form a credential's value takes.
type awsValue int

const (
	awsKeyID awsValue = iota
	awsSecretKey
	awsToken
)

// awsNames are the credentials' names, lower case without underscores.
var awsNames = map[string]awsValue{
	"awsaccesskeyid": awsKeyID, "accesskeyid": awsKeyID,
	"awssecretaccesskey": awsSecretKey, "secretaccesskey": awsSecretKey,
	"awssessiontoken": awsToken, "sessiontoken": awsToken,
	"awssecuritytoken": awsToken, "securitytoken": awsToken,
}

// wordAround widens [start, end) to the identifier (letters, digits,
// underscores) holding it.
func wordAround(b []byte, start, end int) (int, int) {
	for start > 0 && isWordByte(b[start-1]) {
		start--
	}
	for end < len(b) && isWordByte(b[end]) {
		end++
	}
	return start, end
}

func isWordByte(c byte) bool { return wordBytes[c] }

// wordBytes marks the bytes of an identifier: letters, digits, underscore.
var wordBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	return t
}()

// awsNameMax is the longest word that may name a credential:
// aws_secret_access_key with a few more underscores.
const awsNameMax = len("aws_secret_access_key") + 4

// normalName writes word into buf in lower case without underscores; a
// word shorter or longer than any credential's name is not one.
func normalName(buf *[awsNameMax]byte, word []byte) ([]byte, bool) {
	if len(word) < len("accesskeyid") || len(word) > awsNameMax {
		return nil, false
	}
	n := 0
	for _, c := range word {
		switch {
		case c == '_':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return buf[:n], true
}

// awsValueAfter reports whether rest (what follows a credential's name)
// assigns it a value of its form: a closing quote, then =, :, => or a
// comma, then an opening quote, with spaces or tabs around the sign.
func awsValueAfter(rest []byte, kind awsValue) bool {
	i := 0
	if i < len(rest) && (rest[i] == '"' || rest[i] == '\'') {
		i++
	}
	i = skipBlanks(rest, i)
	switch {
	case bytes.HasPrefix(rest[i:], []byte("=>")):
		i += 2
	case i < len(rest) && (rest[i] == '=' || rest[i] == ':' || rest[i] == ','):
		i++
	default:
		return false
	}
	i = skipBlanks(rest, i)
	if i < len(rest) && (rest[i] == '"' || rest[i] == '\'') {
		i++
	}
	v := rest[i:]
	switch kind {
	case awsKeyID:
		return len(v) >= 20 && (bytes.HasPrefix(v, []byte("AKIA")) || bytes.HasPrefix(v, []byte("ASIA"))) && countRun(v[4:], isKeyIDByte) >= 16
	case awsSecretKey:
		return countRun(v, isBase64Byte) >= 40
	default:
		return countRun(v, func(c byte) bool { return c == '=' || isBase64Byte(c) }) >= 100
	}
}

func skipBlanks(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// countRun counts the leading bytes of b that ok accepts.
func countRun(b []byte, ok func(byte) bool) int {
	n := 0
	for n < len(b) && ok(b[n]) {
		n++
	}
	return n
}

func isKeyIDByte(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' }

func isBase64Byte(c byte) bool {
	return c == '/' || c == '+' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
