// Package docpaths holds the repository's prose to the tree: every
// repository path docs/architecture.md, docs/registry.md and the decision
// records name must exist. It has no code of its own; its test reads the
// docs and the tree from the module root.
package docpaths
