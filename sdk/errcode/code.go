// Package errcode is the one registry of runx's error codes.
//
// A refusal or a user error carries a stable snake_case code: it crosses the
// plugin wire, lands in receipts and in the CLI's --json output, and people
// and programs match on it. So a code is never renamed or reused, only added,
// and each is declared exactly once, here, as a Code constant in the file of
// its area, with what it means and what a person should do ("Do:").
//
// docs/errors.md is generated from these declarations (go generate
// ./sdk/errcode); a test fails when it is out of date. Another test walks
// the repository's non-test Go files and refuses a code written as a string
// literal anywhere outside this package, and a string literal given where a
// Code is expected: a call site names the constant.
package errcode

//go:generate go run ./gen

// Code is a stable snake_case error code. Its JSON and wire form is the bare
// string.
type Code string

// String returns the code's spelling.
func (c Code) String() string { return string(c) }
