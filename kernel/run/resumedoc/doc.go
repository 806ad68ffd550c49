// Package resumedoc reads a host's resume document (runx.resume.v1: runx
// resume, an MCP turn's answer, a managed agent's) strictly and within its
// ceilings, before any entry of it is checked against a run, and holds a
// person's answers to the questions an ask put to what the ask allows
// (CheckQuestions). It is pure parsing: it never imports kernel/run nor
// any other of the engine's concerns, and reads no state.
package resumedoc
