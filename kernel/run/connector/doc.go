// Package connector holds connectors and money below the run engine: what
// a connector.yaml operation is to the kernel (its description, binding,
// provider key and receipt fields), the credential a connector plugin
// declares, the payment an operation moves, the tree's money limit
// (quotes, reservations and their settlement), and a connector write's
// finality chain (its custody under a provider key, readbacks, and the
// <step>/retry a person decides when nothing settles it).
//
// It never imports kernel/run: what it needs of the run it serves it takes
// as runstate parts, or through Run, the port the engine satisfies.
package connector
