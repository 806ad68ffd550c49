package store

// KeyFileName is the SQLite store's signing key, beside notary.db.
const KeyFileName = "notary.key"
