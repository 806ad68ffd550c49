// Package canon is the kernel's name for sdk/canon, runx's one canonical
// JSON (RFC 8785) and digest implementation: every function here delegates
// to it, so the kernel and the plugins can never disagree on an encoding.
//
// It imports nothing but sdk/canon.
package canon
