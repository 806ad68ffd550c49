package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"path"
	"sort"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// Source is a module closure as the kernel sends it: in memory, never a
// filesystem path.
type Source struct {
	// Entry is the package-relative path of the module whose default export
	// runs, e.g. "compose.mjs".
	Entry string
	// Files holds every .js/.mjs file of the package, keyed by its clean
	// package-relative slash path ("lib/util.mjs").
	Files map[string][]byte
}

// validate checks the closure's shape and size before any parser sees it and
// returns the entry as a clean package-relative path.
func (s Source) validate() (string, *Error) {
	if err := s.checkSize(); err != nil {
		return "", err
	}
	for name := range s.Files {
		if err := checkFileName(name); err != nil {
			return "", err
		}
	}
	return s.entry()
}

// checkSize refuses a closure over MaxSourceBytes. It runs before the
// closure is even hashed for the cache.
func (s Source) checkSize() *Error {
	total := 0
	for _, body := range s.Files {
		total += len(body)
		if total > MaxSourceBytes {
			return refuse(errcode.ModuleSourceTooLarge, "the module closure is larger than %d bytes", MaxSourceBytes)
		}
	}
	return nil
}

// entry resolves Entry as if the package root imported it, so an entry is
// held to exactly the rules an import is. "compose.mjs" and "./compose.mjs"
// name the same file.
func (s Source) entry() (string, *Error) {
	spec := s.Entry
	if spec != "" && !strings.HasPrefix(spec, ".") && !strings.HasPrefix(spec, "/") && !strings.HasPrefix(spec, `\`) && !hasScheme(spec) {
		spec = "./" + spec
	}
	return resolveSpecifier("<entry>", spec, s.Files)
}

func checkFileName(name string) *Error {
	switch {
	case name == "" || path.Clean(name) != name || strings.ContainsAny(name, "\\\x00"):
		return refuse(errcode.ModuleSourceInvalid, "closure file %q is not a clean package-relative slash path", name)
	case strings.HasPrefix(name, "/") || name == ".." || strings.HasPrefix(name, "../"):
		return refuse(errcode.ModuleSourceInvalid, "closure file %q lies outside the package", name)
	case !hasModuleExtension(name):
		return refuse(errcode.ModuleSourceInvalid, "closure file %q is not a .js or .mjs file", name)
	}
	return nil
}

// digest identifies the closure for the program cache: the entry and every
// file, in name order, each length-prefixed so no two closures collide by
// concatenation. It is the engine's cache key, not the kernel's closure
// digest.
func (s Source) digest() string {
	names := make([]string, 0, len(s.Files))
	for name := range s.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	h := sha256.New()
	var n [8]byte
	field := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte("runx.jsmodule.v1"))
	field([]byte(s.Entry))
	for _, name := range names {
		field([]byte(name))
		field(s.Files[name])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
