package driver

import (
	"strings"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/errcode"
)

// Field bounds. They keep keys indexable everywhere (a PostgreSQL btree entry,
// a Redis key, a SQLite page) and make every reference printable.
const (
	maxSourceBytes         = 512
	maxResourceBytes       = 128
	maxKeyBytes            = 192
	maxIdempotencyKeyBytes = 256
	maxEventTypeBytes      = 128
	maxRedactionRules      = 64
	maxPointerBytes        = 256
)

// ValidateStream checks a stream's address and declaration. Every operation
// on a stream calls it first.
func ValidateStream(s Stream) error {
	if err := validateSourceAndResource(s.Source, s.Resource); err != nil {
		return err
	}
	if s.Key == "" {
		return Errorf(errcode.BroadRead, "%s is required: a store reads and writes one explicit stream, never a whole resource", partitionKeyName(s.Resource))
	}
	if !isKey(s.Key) {
		return Errorf(errcode.InvalidRequest, "%s must be 1..%d bytes of letters, digits and . _ : - @ / starting with a letter or digit", partitionKeyName(s.Resource), maxKeyBytes)
	}
	return nil
}

func validateSourceAndResource(source string, r Resource) error {
	if source == "" {
		return Errorf(errcode.InvalidRequest, "data_source_ref is required")
	}
	if !isSource(source) {
		return Errorf(errcode.InvalidRequest, "data_source_ref must be 1..%d bytes of printable UTF-8 with no surrounding space", maxSourceBytes)
	}
	if r.Name == "" {
		return Errorf(errcode.InvalidRequest, "resource is required")
	}
	if !isResourceName(r.Name) {
		return Errorf(errcode.InvalidRequest, "resource must be 1..%d bytes of letters, digits and . _ - / starting with a letter or digit", maxResourceBytes)
	}
	if r.Kind == "" {
		return Errorf(errcode.SchemaRequired, "resource %q has no declaration: declare it in the data source's binding (kind: event_stream) before reading or writing it", r.Name)
	}
	if r.Kind != KindEventStream {
		return Errorf(errcode.SchemaRequired, "resource %q is declared as %q; this store serves kind event_stream", r.Name, r.Kind)
	}
	if err := validateRules(r); err != nil {
		return err
	}
	return nil
}

func validateRules(r Resource) error {
	if len(r.Secret)+len(r.Private) > maxRedactionRules {
		return Errorf(errcode.InvalidRequest, "resource %q declares more than %d redacted fields", r.Name, maxRedactionRules)
	}
	for _, p := range append(append([]string(nil), r.Secret...), r.Private...) {
		if _, err := parsePointer(p); err != nil {
			return err
		}
	}
	return nil
}

func partitionKeyName(r Resource) string {
	if r.PartitionKey != "" {
		return r.PartitionKey
	}
	return "aggregate_id"
}

func isSource(s string) bool {
	if len(s) > maxSourceBytes || !utf8.ValidString(s) || strings.TrimSpace(s) != s {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}

// isResourceName excludes ':' so that an event_ref parses from the right.
func isResourceName(s string) bool {
	return isToken(s, maxResourceBytes, "._-/")
}

func isKey(s string) bool {
	return isToken(s, maxKeyBytes, "._:-@/")
}

func isEventType(s string) bool {
	return isToken(s, maxEventTypeBytes, "._:-")
}

// isToken: an ASCII letter or digit, then letters, digits and extra.
func isToken(s string, maxBytes int, extra string) bool {
	if s == "" || len(s) > maxBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if alnum {
			continue
		}
		if i == 0 || strings.IndexByte(extra, c) < 0 {
			return false
		}
	}
	return true
}

func validateIdempotencyKey(k string) error {
	if k == "" {
		return Errorf(errcode.IdempotencyKeyRequired, "idempotency_key is required: every write needs one so that a retry cannot append twice")
	}
	if len(k) > maxIdempotencyKeyBytes || !utf8.ValidString(k) || strings.TrimSpace(k) != k {
		return Errorf(errcode.InvalidRequest, "idempotency_key must be 1..%d bytes of printable UTF-8 with no surrounding space", maxIdempotencyKeyBytes)
	}
	for _, r := range k {
		if r < 0x20 || r == 0x7f {
			return Errorf(errcode.InvalidRequest, "idempotency_key must not hold control characters")
		}
	}
	return nil
}
