package jsontext

import "encoding/json"

// WholeNumber reads a JSON integer however a decoder held it: a float64
// with no fraction, an int, an int64 or a json.Number.
func WholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		if n != float64(int64(n)) {
			return 0, false
		}
		return int64(n), true
	case int64:
		return n, true
	case int:
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}
