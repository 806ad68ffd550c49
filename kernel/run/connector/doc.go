// Package connector holds connectors and money below the run engine: what
// a connector.yaml operation is to the kernel (its description, binding,
// provider key and receipt fields), the credential a connector plugin
// declares, the payment an operation moves, and the tree's money limit
// (quotes, reservations and their settlement).
//
// It never imports kernel/run: what it needs of the run it serves it takes
// as runstate parts, or through Run, the port the engine satisfies.
package connector
