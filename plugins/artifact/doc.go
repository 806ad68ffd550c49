// Package artifact is the first-party plugin of the artifact.* capability
// family: large local inputs and retained results, carried by reference.
//
//   - artifact.admit snapshots one contained regular file into the project's
//     artifact store (<project>/artifacts) and answers a runx.artifact.v1
//     descriptor: an opaque reference scoped to the run, with the file's
//     media type, byte count and whole digest, never its host path. A run
//     admits at most 512 MiB in all.
//   - artifact.read pages an artifact by offset as runx.artifact_page.v1,
//     in base64, character-safe UTF-8 or JSON-array record framing, each
//     page at most 4 MiB with the digest of its exact byte range.
//   - artifact.store retains a canonical JSON value as a project artifact
//     (runx.artifact.v1 with its root, size and digest); artifact.open checks
//     that descriptor against this project's store and gives the run a
//     reference artifact.read pages.
//
// A reference grants nothing: it names an artifact of one run only, and
// every read is held again to the reach of the step making it (the source
// of an admitted file must still lie within it; an opened artifact needs
// reach inputs, as opening it did). The kernel holds admit's path to the
// step's reach before the call (its path input), and the plugin checks it
// again where it opens the file.
//
// It imports the SDK, never kernel packages.
package artifact
