// Package docpaths holds the repository's prose to the tree: every
// repository path the README, docs/architecture.md, docs/registry.md, docs/notary.md, the
// decision records and the guides (cli, mcp, connectors, agents) name must
// exist. docs/PERFORMANCE.md is a dated log and keeps the paths of its day. It has no code of its own; its test reads the
// docs and the tree from the module root.
package docpaths
