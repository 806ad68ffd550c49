package credential

import (
	"sort"
	"strconv"
	"strings"
)

// secretFieldNames are the field names that hold a secret wherever they
// appear, compared exactly after case and the separators "_" and "-" are
// set aside (access_token, accessToken and Access-Token are one name).
// It is a list of names, not a text heuristic: no value is inspected, and a
// name that merely contains one of these (next_page_token) is not one.
var secretFieldNames = map[string]bool{
	"password": true, "passwd": true, "secret": true, "clientsecret": true,
	"token": true, "accesstoken": true, "refreshtoken": true, "idtoken": true,
	"apikey": true, "privatekey": true, "credential": true, "credentials": true,
}

// IsSecretFieldName reports whether a field called name holds a secret.
func IsSecretFieldName(name string) bool {
	n := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(name))
	return secretFieldNames[n]
}

// SecretField finds a field with a secret's name in a decoded JSON value
// and returns its JSON Pointer, first in key order. A field whose value is
// null or "" holds nothing and is not reported.
func SecretField(v any) (string, bool) {
	return secretField("", v, 0)
}

// maxSecretFieldDepth bounds the walk; a decoded document is already
// bounded in depth by its decoder, so this only guards a caller's value.
const maxSecretFieldDepth = 10000

func secretField(at string, v any, depth int) (string, bool) {
	if depth > maxSecretFieldDepth {
		return "", false
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := at + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			if IsSecretFieldName(k) && x[k] != nil && x[k] != "" {
				return p, true
			}
			if found, ok := secretField(p, x[k], depth+1); ok {
				return found, true
			}
		}
	case []any:
		for i, e := range x {
			if found, ok := secretField(at+"/"+strconv.Itoa(i), e, depth+1); ok {
				return found, true
			}
		}
	}
	return "", false
}
