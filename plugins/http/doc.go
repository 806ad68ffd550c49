// Package http is the first-party plugin that sends connector operations:
// it declares the connector.request role, renders one operation's request
// from the connector's manifest (its base URL, credential delivery and
// request template, in the call's binding) and the operation's inputs, and
// sends it.
//
// The authenticated destination is the connector's: caller input only
// narrows the path under its base URL (each path parameter escaped into one
// segment), never its scheme or host. Redirects are followed only within
// that origin; plain http is refused off loopback; request and response
// bodies are bounded; every call has a deadline. Failures are typed:
// provider_unavailable (nothing was done), provider_refused (the provider
// answered 4xx, reported by status and its own message, never its raw body
// or a credential) and ambiguous_commit (a write may have left and no
// answer was read).
//
// Under runx test the binding carries the test's declared exchanges and the
// transport answers only from them: there is never a live fallback.
//
// It imports the SDK only, never kernel packages.
package http
