// Package contract holds the wire types runx prints and reads:
// runx.skill_run.v1 (the envelope of a run), the closed vocabularies of
// outcomes and seal reasons, and typed errors with stable codes.
//
// It imports nothing from the rest of the kernel; everything else imports it.
package contract
