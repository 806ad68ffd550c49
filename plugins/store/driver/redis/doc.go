// Package redis is the Redis store driver (redis/go-redis): the data.redis
// adapter. A stream is a list (one element per event, version = index + 1),
// its idempotency keys a hash, and each resource has a heads hash and a keys
// index for listing. One Lua script does append, optimistic concurrency and
// idempotency atomically; reads take a head and a range in one MULTI/EXEC.
//
// It owns its key layout under the binding's key_prefix (layout.go; SCHEMA.md
// in the driver package). The endpoint URL never carries credentials; the
// password arrives as a credential and is scrubbed from anything an error or
// evidence quotes.
//
// It must not import kernel packages or other drivers.
package redis
