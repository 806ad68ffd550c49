// Package store is the first-party plugin that serves the data plane's four
// exact operations (store/events.append, store/events.read, store/key.inspect,
// store/keys.list) over the drivers in store/driver. The kernel resolves the
// logical source a step names to its non-secret binding and delivers any
// credential on the call; this plugin opens (and keeps) the driver that
// binding names, holds every request to the binding's declared resources,
// and answers runx.data.operation_result.v1 packets. Skills never see which
// provider answered. It also serves store/migrate, which only the kernel's
// `runx data migrate` can reach (it needs a binding no step is given).
//
// It imports the SDK and its drivers only, never kernel packages.
package store
