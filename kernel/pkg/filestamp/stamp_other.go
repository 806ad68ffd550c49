//go:build !linux

package filestamp

import "io/fs"

// Of reads no stamp here: nothing is remembered.
func Of(string) (Stamp, bool) { return Stamp{}, false }

// OfInfo reads no stamp here either.
func OfInfo(fs.FileInfo) (Stamp, bool) { return Stamp{}, false }
