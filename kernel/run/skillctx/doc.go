// Package skillctx holds the skill refs a package names and the context
// skills its agent turns read.
//
// Refs are what a run's closure binds and what a run fetches before it
// starts: the children a package's skill steps and call lists run, and
// the skills its agent steps read as context (context.skills). A context
// skill is never run: its SKILL.md reaches the turn as a bounded,
// digest-labelled runx.skill.context artifact, marked untrusted advisory
// data, and the turn's receipt names each by digest.
//
// It imports kernel/pkg and the contracts; never kernel/run.
package skillctx
