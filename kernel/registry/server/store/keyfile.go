package store

// KeyFileName is the SQLite store's signing key, beside registry.db.
const KeyFileName = "registry.key"
