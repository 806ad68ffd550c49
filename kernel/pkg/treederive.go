package pkg

import (
	"strings"
)

// A value derived from a package's files (the loaded Package, the module
// sources a run sends its worker) is the same for as long as the files
// are, so it is remembered on the listing snapshot it was made under
// (treecache.go): every use re-checks the snapshot's stamps, one lstat per
// entry, and any edit since (a file written, added, removed or renamed)
// replaces the snapshot and drops what was derived from it. This is a
// stronger key than a digest of the bytes: a rewrite with the same bytes
// drops the value too.
//
// A value is kept only when the snapshot is still current after it was
// made: the build read files between two checks that found every stamp
// unchanged, and a stamp outside the racy window moves on any write, so
// the build read exactly the files the snapshot names.

// DeriveFromTree returns build's value for dir as its files are now:
// remembered under key while nothing in dir changes, and otherwise built
// from the current listing. key must be comparable and name everything
// other than dir's files that the value depends on. The value is shared by
// every caller that gets it from memory, so neither build's caller nor
// anyone it hands the value to may change it: return a copy of what they
// may change. build must read only files the listing covers (not below a
// .git or .runx directory); an error is never remembered.
func DeriveFromTree(dir string, key any, build func([]TreeEntry) (any, error)) (any, error) {
	snap, err := listTree(dir)
	if err != nil {
		return nil, err
	}
	if v, ok := snap.derived.Load(key); ok {
		return v, nil
	}
	v, err := build(snap.entries)
	if err != nil {
		return nil, err
	}
	snap.keep(dir, key, v)
	return v, nil
}

// DeriveFromFiles is DeriveFromTree over the files p was loaded from.
// When Load served p from memory or remembered it, p holds the listing its
// stamps were checked against during that load, and a value already
// derived from that listing is used without checking them a second time:
// it is what the files were when p was loaded, the files p.Digest names.
// Otherwise it is DeriveFromTree(p.Dir), the files as they are now. Either
// way the next Load checks every stamp again and sees any edit.
func (p *Package) DeriveFromFiles(key any, build func([]TreeEntry) (any, error)) (any, error) {
	if p.tree != nil {
		if v, ok := p.tree.derived.Load(key); ok {
			return v, nil
		}
	}
	return DeriveFromTree(p.Dir, key, build)
}

// keep remembers v under key when the snapshot is remembered and still
// current, so nothing changed while v was made, and reports whether it did.
func (s *treeSnapshot) keep(dir string, key, v any) bool {
	if !s.kept {
		return false
	}
	if now, err := listTree(dir); err != nil || now != s {
		return false
	}
	s.derived.Store(key, v)
	return true
}

// coveredRel reports whether a package-relative path is one the listing
// stamps: inside the package and not below a directory the walk skips.
func coveredRel(rel string) bool {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return false
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." || skippedDir(seg) {
			return false
		}
	}
	return true
}
