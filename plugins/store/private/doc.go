// Package private is the first-party plugin that keeps the person's own
// data: private/events.append, private/events.read, private/events.search,
// private/key.inspect and private/keys.list over one SQLite store in the
// runx home. Its
// capabilities hold the role data.private, by which the kernel knows them:
// every call needs a term of the run's delegation for the connector, the
// kernel holds the call to the term's verbs, packages and bounds (the
// streams it covers), and tells the plugin its store's directory.
//
// A stream is said:<name> (the person's exact words) or observed:<name>
// (what was observed of them), under a key (aggregate_id). An event may be
// standing: {"standing": {"ends_on": "YYYY-MM-DD"}} holds until that date,
// and a read or a search with standing_on selects the events standing on a
// date.
//
// It is a plugin of its own, named private, kept under plugins/store
// because it keeps its data with the store's SQLite driver. It imports the
// SDK and that driver only, never kernel packages.
package private
