// Package testrun is `runx test`: it runs a package's tests/<name>.yaml in
// name order, each in a scratch workspace under .runx/test that is removed
// afterwards, on a fixed clock with deterministic run ids and the public
// fixture key, so a test's receipts are byte-identical run to run. It checks
// each expectation and verifies every receipt before copying it to the
// durable store.
package testrun
