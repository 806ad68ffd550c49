package pkg

// ValidJSONPointer reports whether s is an RFC 6901 JSON pointer: empty (the
// whole document) or "/"-prefixed tokens in which every '~' is followed by
// '0' or '1'.
func ValidJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}
